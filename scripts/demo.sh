#!/usr/bin/env bash
# The main job on the bundled material, as far as the project goes today.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

say "FORMAT.md's audit example: two pair, queens and jacks, the vela king as kicker"
for rules in classic stellapoker italian; do
  vela=(--vela Ks)
  [ "$rules" = stellapoker ] && vela=()
  [ "$rules" = italian ] && vela=(--vela Ks --players 4)
  hhtool rank --rules "$rules" "${vela[@]}" "Qc Qs 9c Jc Jd" "Js Jh 8d Qh Qd"
  echo
done

say "seed 002: A♥ Q♣ beats A♦ K♣ (card order)"
hhtool rank --rules classic "Ah Qc 9d 8s 7c" "Ad Kc 9s 8c 7d"

say "seed 002: heads up, the lowest straight flush beats the royal"
hhtool rank --rules classic "Ah Kh Qh Jh Th" "Ts 9s 8s 7s As"

say "seed 004: italian straight flushes beat each other in a circle"
hhtool rank --rules italian --players 4 "As 7s 8s 9s Ts" "Ah Kh Qh Jh Th" "Kd Qd Jd Td 9d"

say "seed 004: a flush beats a full house; five players play A-6-7-8-9"
hhtool rank --rules italian --players 5 "Ah Ad As Kh Kd" "9s Js Qs 8s 6s" "Ac 6d 7c 8h 9h"

say "seed 004: pokerissimo with sevens wild"
hhtool rank --rules italian --wild 7 --players 4 --json "Ah Ad Ac As 7d" "Kh Qh Jh Th 9h"

say "batch: JSON lines in, one JSON array per line out (a bad line is reported, the rest go on)"
printf '%s\n' \
  '{"hands": ["Qc Qs 9c Jc Jd", "Js Jh 8d Qh Qd"], "vela": "Ks"}' \
  '{"hands": ["Qc Qs 9c Jc Zz"]}' \
  | hhtool rank --rules classic --batch - || echo "(exit $? : one bad line, reported above)"

say "parsing: every bundled sample history into typed events"
hhtool parse sample_histories/*.txt

say "parsing: the broken samples — each error names file, line, column, hand and what was expected; the good hands still parse"
hhtool parse sample_histories/broken/* || echo "(exit $?: failures found, as expected)"

say "one hand as JSON events (the FORMAT.md example), first lines"
hhtool parse --json sample_histories/000_format_example.txt | head -c 600; echo

say "audit: replay every sample under its rules (verdicts, payouts, findings)"
hhtool audit sample_histories/*.txt | grep -E "^(==|verdict|  main pot|  side pot|    )" || true

say "audit: the FORMAT.md example in full"
hhtool audit sample_histories/000_format_example.txt

say "audit: the same hand with the pot paid to alice instead — disputed"
tmp=$(mktemp -d)
sed 's/bob collected €10.90/alice collected €10.90/' sample_histories/000_format_example.txt > "$tmp/disputed.txt"
hhtool audit "$tmp/disputed.txt" | tail -6 || echo "(exit $?: a disputed hand)"

say "audit: what if the FORMAT.md example's showdown were settled under stellapoker's split rule?"
hhtool audit --showdown-rules stellapoker sample_histories/000_format_example.txt | tail -6 || true

say "a room's own rules: the built-in classic profile as a room file, a starting point"
hhtool rules show classic | sed -n '9,22p'

say "a room file: Circolo Vela rakes 5 % of the pot, capped at €0.50, and lifts the cap heads-up"
mkdir -p "$tmp/rooms"
cat > "$tmp/rooms/vela.toml" <<'TOML'
[room]
name = "Circolo Vela"
sites = ["Vela"]
base = "classic"

[rules]
cap_heads_up = true

[rake]
percent = 5
cap = "0.50"
currencies = ["EUR", "USD"]
TOML
hhtool rules check "$tmp/rooms/vela.toml"

say "audit under the room: the FORMAT.md example with its Rake line raised to €1.00 (bob still collected €10.90)"
sed 's/Rake €0.50/Rake €1.00/' sample_histories/000_format_example.txt > "$tmp/raised.txt"
hhtool audit --rooms "$tmp/rooms" --no-equity "$tmp/raised.txt" | head -5 || true
say "the same hand without the room file: the audit says the Rake line and the collections disagree, and takes no side"
hhtool audit --no-equity "$tmp/raised.txt" | head -3 || true

say "equity: heads-up from 3rd street, every runout counted"
hhtool equity --rules classic "Qc Qs 9c" "Ah Kd Jh"

out=out/demo
rm -rf "$out" && mkdir -p "$out"

say "simulate: 600 classic and 400 italian hands by bots, plus 200 with faults injected (manifest beside them)"
hhtool simulate --hands 600 --rules classic --structure fixed --players 6 --seed 1 --out "$out/classic.txt"
hhtool simulate --hands 400 --rules italian --structure pot --players 5 --italian-options vela-at-start --seed 2 --out "$out/italian.txt"
hhtool simulate --hands 200 --rules stellapoker --structure no --players 4 --seed 3 --faults 0.25 --out "$out/faulty.txt"
head -3 "$out/faulty.txt.faults.jsonl"

say "import: the samples (broken ones included) and the simulated hands into one DuckDB file"
hhtool import sample_histories "$out" --db "$out/hands.duckdb" || echo "(exit $?: the broken samples failed to parse, and are kept with their text)"

say "import again: nothing is added twice"
hhtool import sample_histories "$out" --db "$out/hands.duckdb" || true

say "query: verdicts by profile, read-only SQL printed through polars"
hhtool query --db "$out/hands.duckdb" "SELECT profile, verdict, count(*) AS hands FROM hands GROUP BY ALL ORDER BY ALL"

say "query: the five biggest winners, each money apart (net in cents or chips)"
hhtool query --db "$out/hands.duckdb" "SELECT s.player, h.currency, h.unit, count(*) AS hands, sum(s.net) AS net FROM seats s JOIN hands h USING (hand_key) GROUP BY ALL ORDER BY net DESC LIMIT 5"

say "export: Parquet partitioned by date, for engines beyond one machine"
hhtool export --parquet "$out/parquet" --db "$out/hands.duckdb"
find "$out/parquet" -maxdepth 2 | head -8

say "stats: per player, actions over opportunities ('-' where there was no opportunity)"
hhtool stats --db "$out/hands.duckdb" --min-hands 100 --structure fixed | head -40

say "alias: a player is an account on a site; alice's three accounts made one person, shown as one row"
hhtool alias add alice alice@Vela alice@StellaPoker alice@Tavolo --db "$out/hands.duckdb"

say "stats: one player's money per currency, then converted at the rates given (chips never convert)"
hhtool stats --db "$out/hands.duckdb" --player alice | head -8
hhtool stats --db "$out/hands.duckdb" --player alice --currency EUR --rate USD=0.92 | head -8

say "report: one self-contained HTML file (plotly inline, works offline)"
hhtool report --db "$out/hands.duckdb" --out "$out/report.html"
ls -l "$out/report.html"
