/* The parser's accelerator: one hand's text to a Hand, in C, or None.
 *
 * Why: hhtool/history/build.py reads a hand line by line in Python; a line
 * costs microseconds of interpreter work, and the goal
 * (docs/performance.md, "Parsing") needs the whole hand in about that.
 * This module reads the common shape of a hand -- every line kind of
 * FORMAT.md with seated players -- and builds the same frozen event
 * dataclasses the Python parser builds (compiled by mypyc), setting their
 * fields through the classes' own C setters.  No word of the format is
 * coded here: configure() hands it the table of hhtool/history/lines.py and
 * the header, table and seat rules, each with its shape and literal texts
 * from the grammar, and the words of the terminals it reads by hand (fitted
 * to the skeletons of TERMINALS); this code holds a routine per shape and a
 * reader per terminal (docs/architecture.md).
 *
 * It is an accelerator, not a second parser: the Lark grammar and
 * hhtool/history/build.py stay the authority.  Whenever a hand has anything this
 * code does not read exactly as the Python builder would -- a line it does not know,
 * a name it cannot place, a line out of order, an amount in another
 * currency, a control character, anything that would be an error -- it
 * returns None and the builder reads the hand as before (and raises its
 * error).  So this code never reports errors; it only has to be right
 * when it says yes.  tests/test_scan.py runs both paths over every sample,
 * generated, simulated, mutated and hypothesis-made hand and compares the
 * results field by field, line numbers included.
 *
 * How the builder reads names, which this code follows: a body line that
 * starts with seated names followed by ':' or ' ' is read with each of
 * them, longest first, until one gives a player line of the grammar (then
 * as a literal kind, then as chatter about someone not seated);
 * `Dealt to <name> [` takes the longest seated name followed by ` [` (else
 * a line that is exactly `Dealt to <name>`); `Uncalled bet (..) returned
 * to <name>` the longest name that ends the line; `Seat <k>: <name> ...`
 * the longest name followed by ' '.  Where the builder would go on to other
 * readings of those three, this code declines.
 *
 * Memory safety: the text is read as UTF-8 through (pointer, end) pairs;
 * every read is bounds-checked against the end; there are no fixed-size
 * buffers that input can fill (numbers are limited in digits, arrays grow
 * on the heap).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>
#include <string.h>

#define OK 0
#define DECLINE 1 /* build.py must read the hand */
#define NOMATCH 2 /* no line of the grammar with this name: build.py tries the next reading */
#define FAIL (-1) /* a Python exception is set */

#define DIG(ch) ((ch) >= '0' && (ch) <= '9')

/* ------------------------------------------------------------ classes */

/* The classes that hold a hand together (the events are the line kinds' classes, below). */
enum { C_HEADER, C_TABLE, C_SEAT, C_SEAT_OUTCOME, C_SUMMARY, C_HAND, C_MONEY, C_COUNT };

/* What each class must look like: its name and its fields in order (checked by configure). */
static const char *const SHAPES[C_COUNT] = {
    "Header: line site hand_id profile vela_at_start wild exposure structure small_bet big_bet "
    "ante bring_in small_blind big_blind started zone",
    "Table: line name max_seats button",
    "Seat: line seat player stack",
    "SeatOutcome: line seat player button blind outcome street cards amount description",
    "Summary: line total rake main_pot side_pots vela outcomes",
    "Hand: header table seats events summary money source",
    "MoneyStyle: symbol cents decimals grouping",
};

#define MAX_FIELDS 16

typedef struct {
    PyTypeObject *type;
    int n;
    setter setters[MAX_FIELDS]; /* each field's C setter, and its closure */
    void *closures[MAX_FIELDS];
} ClassInfo;

static ClassInfo classes[C_COUNT];

/* ------------------------------------------------------------ line kinds
 *
 * The body's line kinds come from hhtool/history/lines.py (its table) and the grammar, handed
 * to configure(): each kind's rule, its shape (the rule's terminals, literals written `lit`),
 * the literal texts of the rule, its event class, where it may stand and whether the grammar
 * also has it as chatter about someone not seated.  This code holds one routine per shape
 * (GENERIC) and the kinds that keep the hand's state or place names their own way (SPECIAL);
 * a kind whose shape neither knows is not read here (configure returns its rule, and parse.py
 * warns): its lines are declined, so the Python builder reads those hands. */

enum { SH_PLAIN, SH_AMOUNT, SH_BLIND, SH_RAISE, SH_CARDS, SH_SHOW, SH_COLLECT, SH_CHAT, SH_INT, SH_LITERAL, SH_COUNT };
static const struct {
    const char *shape;
    int fields; /* of its event class */
    int lits;   /* the literals of the rule, as the routine compares them */
} GENERIC[SH_COUNT] = {
    {"PLAYER lit", 2, 1},                                                          /* cls(line, player) */
    {"PLAYER lit AMOUNT ALL_IN | PLAYER lit AMOUNT", 4, 1},                        /* (.., amount, all_in) */
    {"PLAYER lit BLIND lit AMOUNT ALL_IN | PLAYER lit BLIND lit AMOUNT", 5, 2},    /* (.., blind, amount, all_in) */
    {"PLAYER lit AMOUNT lit AMOUNT ALL_IN | PLAYER lit AMOUNT lit AMOUNT", 5, 2},  /* (.., by, to, all_in) */
    {"PLAYER lit CARDS lit", 3, 2},                                                /* (.., cards) */
    {"PLAYER lit CARDS lit DESCRIPTION lit", 4, 3},                                /* (.., cards, description) */
    {"PLAYER lit AMOUNT lit POT", 5, 2},                                           /* (.., amount, pot, side) */
    {"PLAYER lit CHAT lit | PLAYER lit lit", 3, 2},                                /* (.., text) */
    {"PLAYER lit INT", 3, 1},                                                      /* (.., number) */
    {"lit", 1, 1},                                                                 /* cls(line) */
};

enum {
    SP_STREET, SP_VELA, SP_SHOW_DOWN, SP_SUMMARY, SP_DEAL, SP_UNCALLED, SP_TOTAL, SP_POTS, SP_SUMMARY_VELA,
    SP_SEAT_FOLDED, SP_SEAT_WON, SP_SEAT_LOST, SP_SEAT_MUCKED, SP_SEAT_COLLECTED,
    SP_HEADER_ANTES, SP_HEADER_BLINDS, SP_TABLE, SP_SEAT, SP_COUNT
};
#define SEAT_WHO(tail) \
    "lit INT lit PLAYER BUTTON BLIND_MARK " tail " | lit INT lit PLAYER BLIND_MARK " tail \
    " | lit INT lit PLAYER BUTTON " tail " | lit INT lit PLAYER " tail
/* The header's expansions (its optional parts present or absent), in rule_shapes' order: longest first. */
#define HEAD(o) "SITE lit HAND_ID lit PROFILE " o "lit STRUCTURE lit AMOUNT lit AMOUNT lit lit AMOUNT "
#define HEAD_TWO(o) HEAD(o) "lit AMOUNT lit DATE lit TIME lit ZONE" /* two forced bets */
#define HEAD_ONE(o) HEAD(o) "lit DATE lit TIME lit ZONE"            /* an ante alone */
#define O_VWE "VELA_AT_START WILD EXPOSURE "
#define O_VE "VELA_AT_START EXPOSURE "
#define O_VW "VELA_AT_START WILD "
#define O_WE "WILD EXPOSURE "
#define O_V "VELA_AT_START "
#define O_W "WILD "
#define O_E "EXPOSURE "
#define OR " | "
static const struct {
    const char *rule, *shape;
    int fields; /* of its event class; 0: none (a part of the summary, or a line built here from classes[]) */
    int lits;   /* the literals the rule has, as its routine compares them */
} SPECIAL[SP_COUNT] = {
    {"street", "lit STREET_NAME lit", 2, 2},
    {"vela", "lit CARDS lit", 2, 2},
    {"show_down", "lit", 1, 1},
    {"summary", "lit", 0, 1},
    {"deal", "lit PLAYER lit CARDS lit lit CARDS lit | lit PLAYER lit CARDS lit | lit PLAYER", 4, 5},
    {"uncalled", "lit AMOUNT lit PLAYER", 3, 2},
    {"total", "lit AMOUNT lit AMOUNT", 0, 2},
    {"pots", "lit AMOUNT lit SIDE_POTS | lit AMOUNT lit", 0, 2},
    {"summary_vela", "lit CARDS lit", 0, 2},
    {"seat_folded", SEAT_WHO("lit FOLD_STREET"), 0, 3},
    {"seat_won", SEAT_WHO("lit CARDS lit AMOUNT lit DESCRIPTION"), 0, 5},
    {"seat_lost", SEAT_WHO("lit CARDS lit DESCRIPTION"), 0, 4},
    {"seat_mucked", SEAT_WHO("lit"), 0, 3},
    {"seat_collected", SEAT_WHO("lit AMOUNT lit"), 0, 4},
    {"header_antes",
     HEAD_TWO(O_VWE) OR HEAD_TWO(O_VE) OR HEAD_TWO(O_VW) OR HEAD_TWO(O_WE) OR HEAD_TWO(O_E) OR HEAD_ONE(O_VWE) OR
     HEAD_TWO(O_V) OR HEAD_TWO(O_W) OR HEAD_ONE(O_VE) OR HEAD_ONE(O_VW) OR HEAD_ONE(O_WE) OR HEAD_TWO("") OR
     HEAD_ONE(O_E) OR HEAD_ONE(O_V) OR HEAD_ONE(O_W) OR HEAD_ONE(""), 0, 11},
    {"header_blinds",
     HEAD_TWO(O_VWE) OR HEAD_TWO(O_VE) OR HEAD_TWO(O_VW) OR HEAD_TWO(O_WE) OR HEAD_TWO(O_E) OR HEAD_TWO(O_V) OR
     HEAD_TWO(O_W) OR HEAD_TWO(""), 0, 11},
    {"table", "lit TABLE_NAME lit INT lit INT lit", 0, 4},
    {"seat", "lit INT lit SEAT_NAME lit AMOUNT lit", 0, 4},
};

/* ------------------------------------------------------------ terminals
 *
 * The terminals this code reads by hand, as skeletons: each is the grammar's pattern with its
 * words taken out, so this code knows the structure it reads and the grammar keeps the words.
 * `{}` is a plain text (one word), `{[]}` the inside of a character class (a word per
 * character), `{|}` an alternation of plain texts (a word per alternative), `{NAME}` another
 * terminal's whole pattern.  parse.py fits the grammar's patterns to them
 * (grammar.terminal_words) and hands configure() the words, each with the value the Python
 * builder converts it to; a pattern of another structure turns this code off. */
enum {
    T_PLAYER, T_AMOUNT, T_CARDS, T_INT, T_DESCRIPTION, T_CHAT, T_ALL_IN, T_BLIND, T_STREET_NAME, T_POT, T_SIDE_POTS,
    T_BUTTON, T_BLIND_MARK, T_FOLD_STREET, T_SITE, T_HAND_ID, T_PROFILE, T_VELA_AT_START, T_WILD, T_EXPOSURE,
    T_STRUCTURE, T_DATE, T_TIME, T_ZONE, T_TABLE_NAME, T_SEAT_NAME, T_COUNT
};
static const char *const TERMINALS[T_COUNT][2] = {
    {"PLAYER", "\x1f[0-9]+"},
    {"AMOUNT", "[{[]}]?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\\.[0-9]{2})?"}, /* the currency signs */
    {"CARDS", "[2-9TJQKA][hdcs](?: [2-9TJQKA][hdcs])*"},
    {"INT", "[0-9]+"},
    {"DESCRIPTION", "[a-z][^()\n]*"},
    {"CHAT", "(?:[^\"\n]|\"(?!$))+"},
    {"ALL_IN", "{}"},
    {"BLIND", "{|}"},
    {"STREET_NAME", "{|}"},
    {"POT", "(?:{}[1-9][0-9]*|{|})"},              /* side pot-<n>; the pots without a number */
    {"SIDE_POTS", "(?:{}[1-9][0-9]*{}{AMOUNT}{})+"}, /* " Side pot-" <n> " " AMOUNT "." */
    {"BUTTON", "{}"},
    {"BLIND_MARK", "{|}"},
    {"FOLD_STREET", "{|}"},
    {"SITE", "[A-Za-z0-9][A-Za-z0-9._-]*"},
    {"HAND_ID", "[A-Za-z0-9][A-Za-z0-9-]*"},
    {"PROFILE", "{|}"},
    {"VELA_AT_START", "{}"},
    {"WILD", "{}(?:10|[2-9TJQKA]){}"},
    {"EXPOSURE", "{|}"}, /* parse.py adds "" for its absence, with the value it then has */
    {"STRUCTURE", "{|}"},
    {"DATE", "[0-9]{4}\\/[0-9]{2}\\/[0-9]{2}"},
    {"TIME", "[0-9]{2}:[0-9]{2}:[0-9]{2}"},
    {"ZONE", "[A-Z]{1,5}|[+-][0-9]{2}:[0-9]{2}"},
    {"TABLE_NAME", "[^\n{[]}]+(?:{[]}[^\n{[]}]+)*(?={}[0-9]+{})"},             /* the quote; the table line's words after it */
    {"SEAT_NAME", "[^\x1f\n].*(?={}[{[]}]?[0-9][0-9,]*(?:\\.[0-9]{2})?{}$)"}, /* the seat line's words after it */
};

#define MAX_KINDS 64
#define MAX_LITS 12

typedef struct {
    char *s; /* UTF-8, owned */
    Py_ssize_t n;
} Lit;

typedef struct {
    int shape;    /* SH_..., or -1 for a SPECIAL kind */
    int allowed;  /* the sections a GENERIC kind may stand in (bits of PRE, STREETS, ...) */
    int stranger; /* the grammar also reads it about someone not seated */
    int nlits;
    Lit lit[MAX_LITS];
    ClassInfo cls;   /* cls.n == 0: no event class */
    PyObject *value; /* what the kind stands for in its event (a seat outcome's kind), or None */
} Kind;

static Kind kinds[MAX_KINDS];
static int nkinds;
static int player_kinds[MAX_KINDS], nplayer;   /* GENERIC kinds led by a seated name, in the table's order */
static int literal_kinds[MAX_KINDS], nliteral; /* SH_LITERAL kinds */
static Kind *special[SP_COUNT];                /* NULL: not read here */

/* A terminal's words, as configure() was handed them: per hole of its skeleton, the choices, each
 * with the value the Python builder converts it to (None for a plain text) and a number (a
 * street's index). */
#define MAX_HOLES 6
#define MAX_CHOICES 8

typedef struct {
    Lit text;
    PyObject *value; /* owned; a str is interned */
    long number;
} Choice;

typedef struct {
    int n;
    Choice c[MAX_CHOICES];
} Hole;

typedef struct {
    int n;
    Hole h[MAX_HOLES];
} Term;

static Term terms[T_COUNT];
#define WORD(t, i) (&terms[t].h[i].c[0].text) /* the one word of a `{}` hole */
#define HOLE(t, i) (&terms[t].h[i])
static long last_street;  /* the highest STREET_NAME number: the vela follows it */
static char table_quote;  /* TABLE_NAME's quote, which it holds but not first, last or twice in a row */

static PyObject *empty_args = NULL; /* () for a compiled class's tp_new */
static int configured = 0;
static PyObject *zone_info = NULL;       /* hhtool.history.zones.zone_info */
static PyObject *header_accepted = NULL; /* hhtool.history.parse.header_accepted */

/* header_accepted's answers by (profile, vela, wild, exposure, antes, bring-in): 0 unknown, 1 yes, 2 no */
#define RULE_KEYS (MAX_CHOICES * 2 * 16 * MAX_CHOICES * 2 * 2)
static signed char rule_answers[RULE_KEYS];

static PyObject *empty_str = NULL; /* "", interned: the symbol of amounts without a currency sign */

/* Why the objects built here are not tracked by the cyclic GC: a frozen event, its
 * tuples and the hand hold only ints, strs, bools, None, datetimes and tuples of those,
 * so no reference cycle can pass through them (CPython untracks tuples and dicts of
 * atomic values for the same reason); reference counting frees them.  Tracked, every
 * hand a program keeps is walked again by each collection: keeping the hands of a file
 * in a list took 3x as long as reading them (docs/performance.md). */
static PyObject *
untracked(PyObject *o)
{
    PyObject_GC_UnTrack(o);
    return o;
}

/* A new instance of class k with its fields set to v[0..n) (references stolen, also on failure).
 *
 * The classes are frozen dataclasses compiled by mypyc (setup.py): fields
 * are native C members (an int is not a PyObject * there), so the class's
 * tp_new allocates the instance and each field's C setter converts and
 * stores its value.  Calling the class instead would run the __init__ that
 * the dataclass decorator writes in Python (a frozen one sets every field
 * through object.__setattr__): a microsecond an event, more than the whole
 * reading of a hand's line. */
static PyObject *
build(const ClassInfo *ci, PyObject **v, int n)
{
    PyObject *o = NULL;
    int i;
    if (n != ci->n) {
        PyErr_Format(PyExc_SystemError, "_scan: %s built with %d fields, has %d", ci->type ? ci->type->tp_name : "a class", n, ci->n);
        goto fail;
    }
    for (i = 0; i < n; i++) {
        if (v[i] == NULL)
            goto fail;
    }
    o = ci->type->tp_new(ci->type, empty_args, NULL);
    if (o == NULL)
        goto fail;
    for (i = 0; i < n; i++) {
        if (ci->setters[i](o, v[i], ci->closures[i]) < 0) {
            Py_DECREF(o);
            goto fail;
        }
    }
    for (i = 0; i < n; i++)
        Py_DECREF(v[i]);
    return PyObject_GC_IsTracked(o) ? untracked(o) : o;
fail:
    for (i = 0; i < n; i++)
        Py_XDECREF(v[i]);
    return NULL;
}

#define NARGS(...) ((int)(sizeof((PyObject *[]){__VA_ARGS__}) / sizeof(PyObject *)))
#define BUILD(k, ...) build(&classes[k], (PyObject *[]){__VA_ARGS__}, NARGS(__VA_ARGS__))
/* an instance of a line kind's event class */
#define KBUILD(kind, ...) build(&(kind)->cls, (PyObject *[]){__VA_ARGS__}, NARGS(__VA_ARGS__))

/* Check a class and take its field setters into *ci.  `shape` is "Name: field field ...",
 * from dataclasses.fields(); `want` (or NULL) the shape it must be, `fields` (or -1) how many
 * fields it must have. */
static int
check_class(ClassInfo *ci, const char *want, int fields, PyObject *cls, PyObject *shape)
{
    const char *got;
    PyTypeObject *type;
    const char *p, *colon;
    int n = 0;

    if (!PyType_Check(cls) || !PyUnicode_Check(shape)) {
        PyErr_SetString(PyExc_TypeError, "_scan.configure: expected a class and its shape");
        return -1;
    }
    got = PyUnicode_AsUTF8(shape);
    if (got == NULL)
        return -1;
    if (want != NULL && strcmp(got, want) != 0) {
        PyErr_Format(PyExc_ValueError, "_scan.configure: class %R, expected %s", shape, want);
        return -1;
    }
    type = (PyTypeObject *)cls;
    /* compiled by mypyc (its own tp_new, fields behind C setters): a pure build has no _scan */
    if (type->tp_new == PyBaseObject_Type.tp_new || type->tp_dictoffset != 0 ||
        PyObject_HasAttrString(cls, "__mypyc_attrs__") != 1) {
        PyErr_Format(PyExc_ValueError, "_scan.configure: %s is not a compiled class", type->tp_name);
        return -1;
    }
    colon = strchr(got, ':');
    if (colon == NULL || colon[1] != ' ') {
        PyErr_Format(PyExc_ValueError, "_scan.configure: class shape %R is not 'Name: fields'", shape);
        return -1;
    }
    p = colon + 2;
    while (*p) {
        const char *q = strchr(p, ' ');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        PyObject *name, *descr;
        PyGetSetDef *gs;
        if (n >= MAX_FIELDS) {
            PyErr_SetString(PyExc_ValueError, "_scan.configure: too many fields");
            return -1;
        }
        name = PyUnicode_FromStringAndSize(p, (Py_ssize_t)len);
        if (name == NULL)
            return -1;
        descr = PyDict_GetItemWithError(type->tp_dict, name); /* borrowed */
        Py_DECREF(name);
        if (descr == NULL) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "_scan.configure: %s has no field %.*s", type->tp_name, (int)len, p);
            return -1;
        }
        if (!Py_IS_TYPE(descr, &PyGetSetDescr_Type) || ((PyDescrObject *)descr)->d_type != type ||
            ((PyGetSetDescrObject *)descr)->d_getset->set == NULL) {
            PyErr_Format(PyExc_ValueError, "_scan.configure: %s.%.*s is not a compiled field", type->tp_name, (int)len, p);
            return -1;
        }
        gs = ((PyGetSetDescrObject *)descr)->d_getset;
        ci->setters[n] = gs->set;
        ci->closures[n] = gs->closure;
        n++;
        p = q ? q + 1 : p + len;
    }
    if (fields >= 0 && n != fields) {
        PyErr_Format(PyExc_ValueError, "_scan.configure: %s has %d fields, its line kind builds %d", type->tp_name, n, fields);
        return -1;
    }
    if (empty_args == NULL && (empty_args = PyTuple_New(0)) == NULL)
        return -1;
    Py_XSETREF(ci->type, (PyTypeObject *)Py_NewRef(cls));
    ci->n = n;
    return 0;
}

static void
kinds_clear(void)
{
    int i, j;
    for (i = 0; i < nkinds; i++) {
        for (j = 0; j < kinds[i].nlits; j++)
            PyMem_Free(kinds[i].lit[j].s);
        Py_CLEAR(kinds[i].cls.type);
        Py_CLEAR(kinds[i].value);
    }
    memset(kinds, 0, sizeof kinds);
    memset(special, 0, sizeof special);
    nkinds = nplayer = nliteral = 0;
}

static void
terms_clear(void)
{
    int t, i, j;
    for (t = 0; t < T_COUNT; t++) {
        for (i = 0; i < terms[t].n; i++) {
            for (j = 0; j < terms[t].h[i].n; j++) {
                PyMem_Free(terms[t].h[i].c[j].text.s);
                Py_CLEAR(terms[t].h[i].c[j].value);
            }
        }
    }
    memset(terms, 0, sizeof terms);
}

/* A str's UTF-8 copied into *l (which then owns it); -1 with TypeError for anything else. */
static int
lit_copy(Lit *l, PyObject *o, const char *what)
{
    Py_ssize_t len;
    const char *text = PyUnicode_Check(o) ? PyUnicode_AsUTF8AndSize(o, &len) : NULL;
    if (text == NULL || (l->s = PyMem_Malloc(len ? (size_t)len : 1)) == NULL) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "_scan.configure: %s must be strs", what);
        return -1;
    }
    memcpy(l->s, text, (size_t)len);
    l->n = len;
    return 0;
}

static inline int
same_lit(const Lit *a, const Lit *b)
{
    return a->n == b->n && memcmp(a->s, b->s, (size_t)a->n) == 0;
}

/* One line kind: (rule, shape, literals, event class or None, its shape or None, sections, stranger, value).
 * Returns 1 when this code reads it, 0 when it does not (no routine for its shape), -1 on error. */
static int
add_kind(PyObject *row)
{
    const char *rule, *shape;
    PyObject *lits, *cls, *cls_shape, *value;
    int allowed, stranger, sh = -1, sp = -1, fields, i;
    Kind *K;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(row, "ssOOOipO:configure's kind", &rule, &shape, &lits, &cls, &cls_shape, &allowed, &stranger, &value))
        return -1;
    if (!PyTuple_Check(lits) || PyTuple_GET_SIZE(lits) > MAX_LITS) {
        PyErr_Format(PyExc_ValueError, "_scan.configure: kind %s: literals must be a tuple of at most %d", rule, MAX_LITS);
        return -1;
    }
    for (i = 0; i < SP_COUNT; i++) {
        if (strcmp(rule, SPECIAL[i].rule) == 0) {
            sp = i;
            break;
        }
    }
    if (sp >= 0) {
        if (strcmp(shape, SPECIAL[sp].shape) != 0)
            return 0;
        fields = SPECIAL[sp].fields;
    }
    else {
        for (i = 0; i < SH_COUNT; i++) {
            if (strcmp(shape, GENERIC[i].shape) == 0) {
                sh = i;
                break;
            }
        }
        if (sh < 0 || allowed == 0) /* no routine for its shape, or a builder of its own in Python */
            return 0;
        fields = GENERIC[sh].fields;
    }
    n = PyTuple_GET_SIZE(lits);
    if (n != (sp >= 0 ? SPECIAL[sp].lits : GENERIC[sh].lits)) {
        PyErr_Format(PyExc_ValueError, "_scan.configure: line kind %s has %zd literals", rule, n);
        return -1;
    }
    if (nkinds >= MAX_KINDS) {
        PyErr_SetString(PyExc_ValueError, "_scan.configure: too many line kinds");
        return -1;
    }
    K = &kinds[nkinds];
    memset(K, 0, sizeof *K);
    if (fields > 0) {
        if (cls == Py_None || check_class(&K->cls, NULL, fields, cls, cls_shape) < 0) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "_scan.configure: kind %s needs an event class", rule);
            Py_CLEAR(K->cls.type);
            return -1;
        }
    }
    for (i = 0; i < n; i++) {
        if (lit_copy(&K->lit[i], PyTuple_GET_ITEM(lits, i), "a kind's literals") < 0) {
            for (; i > 0; i--)
                PyMem_Free(K->lit[i - 1].s);
            Py_CLEAR(K->cls.type);
            return -1;
        }
    }
    K->nlits = (int)n;
    K->shape = sh;
    K->allowed = allowed;
    K->stranger = stranger;
    K->value = Py_NewRef(value);
    if (PyUnicode_CheckExact(K->value))
        PyUnicode_InternInPlace(&K->value);
    nkinds++;
    if (sp >= 0)
        special[sp] = K;
    else if (sh == SH_LITERAL)
        literal_kinds[nliteral++] = nkinds - 1;
    else
        player_kinds[nplayer++] = nkinds - 1;
    return 1;
}

/* The holes of a skeleton, in order: the kind of each ('l' `{}`, 's' `{[]}`, 'a' `{|}`) into kinds. */
static int
skeleton_holes(const char *sk, char *kinds_out)
{
    int n = 0;
    for (; *sk; sk++) {
        char kind = strncmp(sk, "{}", 2) == 0 ? 'l' : strncmp(sk, "{[]}", 4) == 0 ? 's' : strncmp(sk, "{|}", 3) == 0 ? 'a' : 0;
        if (kind && n < MAX_HOLES)
            kinds_out[n] = kind;
        n += kind != 0;
    }
    return n;
}

/* The terminals' words: {name: ((choice, ...) per hole)}, a choice (text, value, number). */
static int
set_terms(PyObject *words)
{
    int t, i, j;
    if (!PyDict_Check(words)) {
        PyErr_SetString(PyExc_TypeError, "_scan.configure: terminals must be a dict");
        return -1;
    }
    for (t = 0; t < T_COUNT; t++) {
        char holes[MAX_HOLES];
        int nholes = skeleton_holes(TERMINALS[t][1], holes);
        PyObject *got = PyDict_GetItemString(words, TERMINALS[t][0]); /* borrowed */
        if (got == NULL || !PyTuple_Check(got) || PyTuple_GET_SIZE(got) != nholes || nholes > MAX_HOLES) {
            PyErr_Format(PyExc_ValueError, "_scan.configure: the terminal %s needs the words of %d holes", TERMINALS[t][0], nholes);
            return -1;
        }
        for (i = 0; i < nholes; i++) {
            PyObject *hole = PyTuple_GET_ITEM(got, i);
            Py_ssize_t n = PyTuple_Check(hole) ? PyTuple_GET_SIZE(hole) : -1;
            terms[t].n = i + 1; /* what terms_clear frees, also of a hole read in part */
            if (n < 1 || n > MAX_CHOICES || (holes[i] == 'l' && n != 1)) {
                PyErr_Format(PyExc_ValueError, "_scan.configure: the terminal %s: hole %d needs %s", TERMINALS[t][0], i,
                             holes[i] == 'l' ? "one word" : "1 to 8 words");
                return -1;
            }
            for (j = 0; j < n; j++) {
                Choice *c = &terms[t].h[i].c[j];
                PyObject *text, *value;
                long number;
                if (!PyArg_ParseTuple(PyTuple_GET_ITEM(hole, j), "UOl:configure's word", &text, &value, &number) ||
                    lit_copy(&c->text, text, "words") < 0)
                    return -1;
                terms[t].h[i].n = j + 1;
                if (c->text.n == 0 && (holes[i] != 'a' || j != n - 1)) {
                    PyErr_Format(PyExc_ValueError, "_scan.configure: the terminal %s: an empty word is the last choice only", TERMINALS[t][0]);
                    return -1;
                }
                c->value = Py_NewRef(value);
                if (PyUnicode_CheckExact(c->value))
                    PyUnicode_InternInPlace(&c->value);
                c->number = number;
            }
        }
    }
    return 0;
}

static int
refuse(const char *why)
{
    PyErr_Format(PyExc_ValueError, "_scan.configure: %s", why);
    return -1;
}

/* What this code relies on between the kinds and the terminals it was given. */
static int
check_configuration(void)
{
    const Kind *T = special[SP_TABLE], *S = special[SP_SEAT], *A = special[SP_HEADER_ANTES], *B = special[SP_HEADER_BLINDS];
    static const int valued[] = {T_AMOUNT, T_BLIND, T_STREET_NAME, T_POT, T_BLIND_MARK, T_FOLD_STREET, T_PROFILE, T_EXPOSURE, T_STRUCTURE};
    const Hole *signs = HOLE(T_AMOUNT, 0), *seat_signs = HOLE(T_SEAT_NAME, 1);
    int i, j, sp;
    /* the words that become an event's field carry its value (a str); a seat outcome its kind */
    for (i = 0; i < (int)(sizeof valued / sizeof valued[0]); i++) {
        const Term *term = &terms[valued[i]];
        int h;
        for (h = 0; h < term->n; h++) {
            for (j = 0; j < term->h[h].n; j++) {
                if (!PyUnicode_Check(term->h[h].c[j].value)) {
                    PyErr_Format(PyExc_TypeError, "_scan.configure: the words of %s need str values", TERMINALS[valued[i]][0]);
                    return -1;
                }
            }
        }
    }
    for (sp = SP_SEAT_FOLDED; sp <= SP_SEAT_COLLECTED; sp++) {
        if (special[sp] != NULL && !PyUnicode_Check(special[sp]->value)) {
            PyErr_Format(PyExc_TypeError, "_scan.configure: %s needs its outcome (a str)", SPECIAL[sp].rule);
            return -1;
        }
    }
    /* the seat outcomes begin alike ("Seat " INT ": " PLAYER ...): one reading of that part */
    for (sp = SP_SEAT_WON; sp <= SP_SEAT_COLLECTED; sp++) {
        const Kind *first = special[SP_SEAT_FOLDED], *K = special[sp];
        if (K != NULL && (first == NULL || !same_lit(&K->lit[0], &first->lit[0]) || !same_lit(&K->lit[1], &first->lit[1]))) {
            PyErr_Format(PyExc_ValueError, "_scan.configure: %s does not begin as seat_folded does", SPECIAL[sp].rule);
            return -1;
        }
    }
    /* the two headers differ only in their forced bets: one reading of the rest */
    if (A != NULL && B != NULL) {
        for (i = 0; i < 11; i++) {
            if ((i < 6 || i > 7) && !same_lit(&A->lit[i], &B->lit[i]))
                return refuse("header_antes and header_blinds differ outside their forced bets");
        }
    }
    /* a name and an amount are read by the seat line's literals: SEAT_NAME must end where they say */
    if (S != NULL) {
        if (!same_lit(WORD(T_SEAT_NAME, 0), &S->lit[2]) || !same_lit(WORD(T_SEAT_NAME, 2), &S->lit[3]) || signs->n != seat_signs->n)
            return refuse("SEAT_NAME does not end where the seat line's literals say");
        for (i = 0; i < signs->n; i++) {
            if (!same_lit(&signs->c[i].text, &seat_signs->c[i].text))
                return refuse("SEAT_NAME's currency signs are not AMOUNT's");
        }
    }
    /* the table line is read from its end, its numbers by their digits */
    for (i = 0; i < 3; i++) {
        const Lit *q = WORD(T_TABLE_NAME, i);
        if (q->n != 1 || q->s[0] != WORD(T_TABLE_NAME, 0)->s[0])
            return refuse("TABLE_NAME's quote is not one character");
    }
    table_quote = WORD(T_TABLE_NAME, 0)->s[0];
    if (T != NULL) {
        const Lit *sep = &T->lit[1], *mid = &T->lit[2], *tail = &T->lit[3], *look = WORD(T_TABLE_NAME, 4);
        if (!same_lit(WORD(T_TABLE_NAME, 3), sep) || mid->n < look->n || memcmp(mid->s, look->s, (size_t)look->n) != 0)
            return refuse("TABLE_NAME does not end where the table line's literals say");
        if (sep->n == 0 || mid->n == 0 || tail->n == 0 || DIG(sep->s[sep->n - 1]) || DIG(mid->s[0]) || DIG(mid->s[mid->n - 1]) ||
            DIG(tail->s[0]))
            return refuse("the table line's numbers must stand between non-digits");
    }
    last_street = -1;
    for (i = 0; i < HOLE(T_STREET_NAME, 0)->n; i++) {
        if (HOLE(T_STREET_NAME, 0)->c[i].number > last_street)
            last_street = HOLE(T_STREET_NAME, 0)->c[i].number;
    }
    return 0;
}

static PyObject *
configure(PyObject *self, PyObject *args)
{
    PyObject *pairs, *rows, *words, *zi, *ha, *unread;
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "OOOOO:configure", &pairs, &rows, &words, &zi, &ha))
        return NULL;
    configured = 0;
    kinds_clear();
    terms_clear();
    if (!PySequence_Check(pairs) || PySequence_Size(pairs) != C_COUNT) {
        PyErr_Format(PyExc_ValueError, "_scan.configure: expected %d classes", C_COUNT);
        return NULL;
    }
    for (i = 0; i < C_COUNT; i++) {
        PyObject *pair = PySequence_GetItem(pairs, i);
        int r;
        if (pair == NULL)
            return NULL;
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            Py_DECREF(pair);
            PyErr_SetString(PyExc_TypeError, "_scan.configure: expected (class, shape) pairs");
            return NULL;
        }
        r = check_class(&classes[i], SHAPES[i], -1, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1));
        Py_DECREF(pair);
        if (r < 0)
            return NULL;
    }
    if (set_terms(words) < 0) {
        terms_clear();
        return NULL;
    }
    if (!PyCallable_Check(zi) || !PyCallable_Check(ha)) {
        PyErr_SetString(PyExc_TypeError, "_scan.configure: zone_info and header_accepted must be callable");
        return NULL;
    }
    if (!PyList_Check(rows)) {
        PyErr_SetString(PyExc_TypeError, "_scan.configure: the line kinds must be a list");
        return NULL;
    }
    if ((unread = PyList_New(0)) == NULL)
        return NULL;
    for (i = 0; i < PyList_GET_SIZE(rows); i++) {
        PyObject *row = PyList_GET_ITEM(rows, i);
        int r = PyTuple_Check(row) ? add_kind(row) : -1;
        if (r < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "_scan.configure: a line kind must be a tuple");
            goto fail;
        }
        if (r == 0 && PyList_Append(unread, PyTuple_GET_ITEM(row, 0)) < 0)
            goto fail;
    }
    if (check_configuration() < 0)
        goto fail;
    Py_XSETREF(zone_info, Py_NewRef(zi));
    Py_XSETREF(header_accepted, Py_NewRef(ha));
    memset(rule_answers, 0, sizeof rule_answers);
    configured = 1;
    {
        PyObject *t = PyList_AsTuple(unread);
        Py_DECREF(unread);
        return t;
    }
fail:
    Py_DECREF(unread);
    kinds_clear();
    terms_clear();
    return NULL;
}

/* -------------------------------------------------------------- text */

#define MAX_DIGITS 15 /* amounts below 10**15 (times 100 fits in 64 bits); build.py takes the rest */
#define MAX_INT_DIGITS 9
/* build.py's bounds (docs/format-notes.md, "Bounds"): beyond them it raises OutOfRangeError, so
 * this code declines.  money.MAX_AMOUNT, parse.MAX_SEAT, parse.MAX_HAND_LINES; tests/test_bounds_scan.py
 * checks both readers at and just past each. */
#define MAX_AMOUNT 1000000000000LL
#define MAX_SEAT 99
#define MAX_HAND_LINES 32767

/* A literal at p / as all of [p, e) / at the end of [p, e); stepped over. */
static inline int
has_lit(const char *p, const char *e, const Lit *l)
{
    return e - p >= l->n && memcmp(p, l->s, (size_t)l->n) == 0;
}
static inline int
is_lit(const char *p, const char *e, const Lit *l)
{
    return e - p == l->n && memcmp(p, l->s, (size_t)l->n) == 0;
}
static inline int
ends_lit(const char *p, const char *e, const Lit *l)
{
    return e - p >= l->n && memcmp(e - l->n, l->s, (size_t)l->n) == 0;
}
#define EAT_LIT(p, e, l) (has_lit((p), (e), (l)) ? ((p) += (l)->n, 1) : 0)
/* a kind's literal i */
#define HASL(p, e, K, i) has_lit((p), (e), &(K)->lit[i])
#define ISL(p, e, K, i) is_lit((p), (e), &(K)->lit[i])
#define EATL(p, e, K, i) EAT_LIT(p, e, &(K)->lit[i])
/* a terminal's word (the one of its `{}` hole i) */
#define EATW(p, e, t, i) EAT_LIT(p, e, WORD(t, i))

/* The first of a hole's choices that starts at *p (and *p steps past it), or -1.  In the
 * grammar's order, as its regular expression tries them; an empty choice (EXPOSURE's absence)
 * is the last and always matches. */
static int
eat_choice(const char **p, const char *e, const Hole *h)
{
    int i;
    for (i = 0; i < h->n; i++) {
        if (has_lit(*p, e, &h->c[i].text)) {
            *p += h->c[i].text.n;
            return i;
        }
    }
    return -1;
}

/* The one of a hole's choices that is all of [p, e), or -1. */
static int
one_choice(const char *p, const char *e, const Hole *h)
{
    int i;
    for (i = 0; i < h->n; i++) {
        if (is_lit(p, e, &h->c[i].text))
            return i;
    }
    return -1;
}

/* A rank character of cards.py (2..9, T, J, Q, K, A) -> 2..14, or -1. */
static int
rank_of(char ch)
{
    static const char ranks[] = "23456789TJQKA";
    const char *at = ch ? strchr(ranks, ch) : NULL;
    return at ? (int)(at - ranks) + 2 : -1;
}

static inline int
is_alnum(char ch)
{
    return DIG(ch) || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z');
}

/* A run of digits, adding to *count and to *out; *out becomes -1 past max digits (the grammar
 * takes any number of digits; this code declines the ones it would have to hold as big ints). */
static const char *
digits(const char *p, const char *e, int max, long long *out, int *count)
{
    for (; p < e && DIG(*p); p++) {
        ++*count;
        *out = *out < 0 || *count > max ? -1 : *out * 10 + (*p - '0');
    }
    return p;
}

/* INT: NULL without a digit; *out is -1 for more than MAX_INT_DIGITS digits. */
static const char *
int_token(const char *p, const char *e, long *out)
{
    long long v = 0;
    int n = 0;
    p = digits(p, e, MAX_INT_DIGITS, &v, &n);
    if (n == 0)
        return NULL;
    *out = (long)v;
    return p;
}

typedef struct {
    int sym; /* 0: no currency sign; else 1 + its index among AMOUNT's signs */
    long long whole; /* -1: too many digits to hold */
    int hundredths;  /* -1: none written */
    int grouped;
} Raw;

/* AMOUNT as the grammar reads it: [<signs>]?(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]{2})?
 * Greedy, which is the grammar's reading whenever the line matches: no
 * literal that may follow an amount starts with a digit, ",<digit>" or
 * ".<digit><digit>" except where the amount ends at that '.' anyway. */
static const char *
raw_amount(const char *p, const char *e, Raw *r)
{
    long long v = 0;
    int n = 0;
    r->sym = eat_choice(&p, e, HOLE(T_AMOUNT, 0)) + 1;
    p = digits(p, e, MAX_DIGITS, &v, &n);
    if (n == 0)
        return NULL;
    r->grouped = 0;
    if (n <= 3 && e - p >= 4 && p[0] == ',' && DIG(p[1]) && DIG(p[2]) && DIG(p[3])) {
        r->grouped = 1;
        while (e - p >= 4 && p[0] == ',' && DIG(p[1]) && DIG(p[2]) && DIG(p[3])) {
            digits(p + 1, p + 4, MAX_DIGITS, &v, &n);
            p += 4;
        }
    }
    r->hundredths = -1;
    if (e - p >= 3 && p[0] == '.' && DIG(p[1]) && DIG(p[2])) {
        r->hundredths = (p[1] - '0') * 10 + (p[2] - '0');
        p += 3;
    }
    r->whole = v;
    return p;
}

/* ------------------------------------------------------------ a hand */

enum { PRE, STREETS, SHOWDOWN, SUMMARY };
#define IN_PRE (1 << PRE)
#define IN_PLAY ((1 << STREETS) | (1 << SHOWDOWN))
#define IN_BODY ((1 << PRE) | (1 << STREETS) | (1 << SHOWDOWN))

#define MAX_SEATS 64

typedef struct {
    const char *name; /* UTF-8, in the text */
    Py_ssize_t len;   /* bytes */
    Py_ssize_t chars; /* code points: build.py orders names by len() */
    long seat;
    PyObject *str;    /* the name as a str (owned) */
} SeatName;

typedef struct {
    PyObject **items;
    Py_ssize_t n, cap;
} Vec;

typedef struct {
    long long line0;
    int sym, cents, flags; /* flags: 1 decimals written, 2 thousands separators */
    SeatName seats[MAX_SEATS];
    int order[MAX_SEATS]; /* seat indexes, longest name first (stable) */
    int nseats;
    long max_seats;
    int section, street, had_vela;
    long long summary_line;
    int has_total, has_main;
    long long total, rake, main_pot;
    int vela; /* summary vela card, -1 none */
    PyObject *side_pots; /* tuple or NULL */
    long last_outcome_seat;
    Vec events, outcomes, seat_objs;
} Hand;

static int
push(Vec *v, PyObject *o) /* steals o */
{
    if (o == NULL)
        return FAIL;
    if (v->n == v->cap) {
        Py_ssize_t cap = v->cap ? v->cap * 2 : 64;
        PyObject **items = PyMem_Realloc(v->items, (size_t)cap * sizeof(PyObject *));
        if (items == NULL) {
            Py_DECREF(o);
            PyErr_NoMemory();
            return FAIL;
        }
        v->items = items;
        v->cap = cap;
    }
    v->items[v->n++] = o;
    return OK;
}

static void
vec_clear(Vec *v)
{
    Py_ssize_t i;
    for (i = 0; i < v->n; i++)
        Py_DECREF(v->items[i]);
    PyMem_Free(v->items);
    v->items = NULL;
    v->n = v->cap = 0;
}

static PyObject *
vec_tuple(Vec *v) /* the items as a tuple; the vector gives them up */
{
    PyObject *t = PyTuple_New(v->n);
    Py_ssize_t i;
    if (t == NULL)
        return NULL;
    for (i = 0; i < v->n; i++)
        PyTuple_SET_ITEM(t, i, v->items[i]);
    v->n = 0;
    return untracked(t);
}

static void
hand_clear(Hand *h)
{
    int i;
    for (i = 0; i < h->nseats; i++)
        Py_CLEAR(h->seats[i].str);
    Py_CLEAR(h->side_pots);
    vec_clear(&h->events);
    vec_clear(&h->outcomes);
    vec_clear(&h->seat_objs);
}

static PyObject *
line_no(Hand *h, long long k)
{
    return PyLong_FromLongLong(h->line0 + k);
}

static PyObject *
text_str(const char *p, const char *e)
{
    return PyUnicode_DecodeUTF8(p, (Py_ssize_t)(e - p), "strict");
}

static PyObject *
bool_ref(int b)
{
    return Py_NewRef(b ? Py_True : Py_False);
}

/* A raw amount in the hand's money (0: another sign, decimals in chips, above MAX_AMOUNT: build.py's errors). */
static int
units(Hand *h, const Raw *r, long long *out)
{
    if (r->sym != h->sym || r->whole < 0)
        return 0;
    if (h->cents)
        *out = r->whole * 100 + (r->hundredths < 0 ? 0 : r->hundredths);
    else if (r->hundredths >= 0)
        return 0;
    else
        *out = r->whole;
    if (*out > MAX_AMOUNT)
        return 0;
    if (r->hundredths >= 0)
        h->flags |= 1;
    if (r->grouped)
        h->flags |= 2;
    return 1;
}

/* AMOUNT in the hand's money; NULL to decline. */
static const char *
amount(Hand *h, const char *p, const char *e, long long *out)
{
    Raw r;
    p = raw_amount(p, e, &r);
    if (p == NULL || !units(h, &r, out))
        return NULL;
    return p;
}

static int
card_at(const char *p)
{
    int rank = rank_of(p[0]);
    const char *suit = p[1] ? strchr("scdh", p[1]) : NULL; /* cards.py's SUIT_CHARS: spades lowest */
    if (rank < 0 || suit == NULL)
        return -1;
    return rank * 4 + (int)(suit - "scdh");
}

/* CARDS: [2-9TJQKA][hdcs](?: [2-9TJQKA][hdcs])*, as a tuple of card ints (cards.py). */
static const char *
cards(const char *p, const char *e, PyObject **out)
{
    const char *q = p;
    Py_ssize_t n = 0, i;
    PyObject *t;
    if (e - q < 2 || card_at(q) < 0)
        return NULL;
    q += 2;
    n = 1;
    while (e - q >= 3 && q[0] == ' ' && card_at(q + 1) >= 0) {
        q += 3;
        n++;
    }
    t = PyTuple_New(n);
    if (t == NULL) {
        *out = NULL;
        return q; /* the caller sees *out == NULL: a Python error */
    }
    for (i = 0; i < n; i++) {
        PyObject *c = PyLong_FromLong(card_at(p + 3 * i));
        if (c == NULL) {
            Py_DECREF(t);
            *out = NULL;
            return q;
        }
        PyTuple_SET_ITEM(t, i, c);
    }
    *out = untracked(t);
    return q;
}

/* ------------------------------------------------------------ header */

static int
rule_key(int profile, int vela, long wild, int exposure, int antes, int bring)
{
    return ((((profile * 2 + vela) * 16 + (int)(wild ? wild : 0)) * MAX_CHOICES + exposure) * 2 + antes) * 2 + bring;
}

/* `n` digits at p, as a number; -1 where one is not a digit. */
static long
fixed_digits(const char *p, int n)
{
    long v = 0;
    int i;
    for (i = 0; i < n; i++) {
        if (!DIG(p[i]))
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

/* DATE, [0-9]{4}\/[0-9]{2}\/[0-9]{2}, or TIME, [0-9]{2}:[0-9]{2}:[0-9]{2}: three numbers of
 * `first`, 2 and 2 digits, each after the first behind `sep`; NULL where that is not at p. */
static const char *
three_numbers(const char *p, const char *e, int first, char sep, long out[3])
{
    if (e - p < first + 6 || (out[0] = fixed_digits(p, first)) < 0 || p[first] != sep || (out[1] = fixed_digits(p + first + 1, 2)) < 0 ||
        p[first + 3] != sep || (out[2] = fixed_digits(p + first + 4, 2)) < 0)
        return NULL;
    return p + first + 6;
}

static int
header(Hand *h, const char *p, const char *e, PyObject **out)
{
    /* SITE lit HAND_ID lit PROFILE [VELA_AT_START] [WILD] [EXPOSURE] lit STRUCTURE lit AMOUNT lit AMOUNT lit,
     * then the antes (lit AMOUNT [lit AMOUNT]) or the blinds (lit AMOUNT lit AMOUNT), then lit DATE lit TIME lit ZONE */
    const Kind *A = special[SP_HEADER_ANTES], *B = special[SP_HEADER_BLINDS], *H = A != NULL ? A : B;
    const char *site0, *site1, *id0, *id1, *zone0;
    int profile, vela = 0, exposure, structure, antes;
    long wild = 0;
    Raw small, big, a1, a2;
    int have_a2 = 0;
    long long small_v = 0, big_v = 0, a1_v = 0, a2_v = 0;
    long date[6];
    PyObject *zone = NULL, *tz = NULL, *started = NULL, *head;

    if (H == NULL)
        return DECLINE;
    /* SITE " Hand #" HAND_ID ": Telesina " */
    site0 = p;
    if (p >= e || !is_alnum(*p))
        return DECLINE;
    while (p < e && (is_alnum(*p) || *p == '.' || *p == '_' || *p == '-'))
        p++;
    site1 = p;
    if (!EATL(p, e, H, 0))
        return DECLINE;
    id0 = p;
    if (p >= e || !is_alnum(*p))
        return DECLINE;
    while (p < e && (is_alnum(*p) || *p == '-'))
        p++;
    id1 = p;
    if (!EATL(p, e, H, 1))
        return DECLINE;
    /* PROFILE [VELA_AT_START] [WILD] [EXPOSURE] " " STRUCTURE */
    if ((profile = eat_choice(&p, e, HOLE(T_PROFILE, 0))) < 0)
        return DECLINE;
    if (EATW(p, e, T_VELA_AT_START, 0))
        vela = 1;
    if (EATW(p, e, T_WILD, 0)) {
        wild = p + 1 < e && p[0] == '1' && p[1] == '0' ? (p += 2, 10) : p < e ? rank_of(*p++) : -1; /* (?:10|[2-9TJQKA]) */
        if (wild < 0 || !EATW(p, e, T_WILD, 1))
            return DECLINE;
    }
    exposure = eat_choice(&p, e, HOLE(T_EXPOSURE, 0)); /* its last choice, "", is its absence */
    if (exposure < 0 || !EATL(p, e, H, 2) || (structure = eat_choice(&p, e, HOLE(T_STRUCTURE, 0))) < 0)
        return DECLINE;
    /* " (" AMOUNT "/" AMOUNT ")" */
    if (!EATL(p, e, H, 3) || (p = raw_amount(p, e, &small)) == NULL || !EATL(p, e, H, 4) ||
        (p = raw_amount(p, e, &big)) == NULL || !EATL(p, e, H, 5))
        return DECLINE;
    /* " - ante " AMOUNT [", bring-in " AMOUNT] | " - blinds " AMOUNT "/" AMOUNT */
    if (A != NULL && EATL(p, e, A, 6)) {
        antes = 1;
        if ((p = raw_amount(p, e, &a1)) == NULL)
            return DECLINE;
        if (EATL(p, e, A, 7)) {
            have_a2 = 1;
            if ((p = raw_amount(p, e, &a2)) == NULL)
                return DECLINE;
        }
    }
    else if (B != NULL && EATL(p, e, B, 6)) {
        antes = 0;
        have_a2 = 1;
        if ((p = raw_amount(p, e, &a1)) == NULL || !EATL(p, e, B, 7) || (p = raw_amount(p, e, &a2)) == NULL)
            return DECLINE;
    }
    else
        return DECLINE;
    /* " - " DATE " " TIME " " ZONE */
    if (!EATL(p, e, H, 8) || (p = three_numbers(p, e, 4, '/', date)) == NULL || !EATL(p, e, H, 9) ||
        (p = three_numbers(p, e, 2, ':', date + 3)) == NULL || !EATL(p, e, H, 10))
        return DECLINE;
    zone0 = p;
    if (p < e && (*p == '+' || *p == '-')) {
        if (e - p != 6 || !DIG(p[1]) || !DIG(p[2]) || p[3] != ':' || !DIG(p[4]) || !DIG(p[5]))
            return DECLINE;
    }
    else {
        if (e - p < 1 || e - p > 5)
            return DECLINE;
        for (; p < e; p++) {
            if (*p < 'A' || *p > 'Z')
                return DECLINE;
        }
    }

    /* money: the small bet's sign; cents when there is a sign or any decimals */
    h->sym = small.sym;
    h->cents = h->sym != 0 || small.hundredths >= 0 || big.hundredths >= 0 || a1.hundredths >= 0 ||
               (have_a2 && a2.hundredths >= 0);
    if (!units(h, &a1, &a1_v) || (have_a2 && !units(h, &a2, &a2_v)) || !units(h, &small, &small_v) ||
        !units(h, &big, &big_v))
        return DECLINE;

    zone = text_str(zone0, e);
    if (zone == NULL)
        return FAIL;
    tz = PyObject_CallOneArg(zone_info, zone);
    if (tz == NULL) {
        Py_DECREF(zone);
        if (PyErr_ExceptionMatches(PyExc_ValueError)) { /* ZoneError: build.py says why */
            PyErr_Clear();
            return DECLINE;
        }
        return FAIL;
    }
    started = PyDateTimeAPI->DateTime_FromDateAndTime(
        (int)date[0], (int)date[1], (int)date[2], (int)date[3], (int)date[4], (int)date[5], 0, tz,
        PyDateTimeAPI->DateTimeType);
    Py_DECREF(tz);
    if (started == NULL) {
        Py_DECREF(zone);
        if (PyErr_ExceptionMatches(PyExc_ValueError)) { /* not a date: build.py says why */
            PyErr_Clear();
            return DECLINE;
        }
        return FAIL;
    }
    head = BUILD(C_HEADER,
        line_no(h, 0),
        text_str(site0, site1),
        text_str(id0, id1),
        Py_NewRef(HOLE(T_PROFILE, 0)->c[profile].value),
        bool_ref(vela),
        wild ? PyLong_FromLong(wild) : Py_NewRef(Py_None),
        Py_NewRef(HOLE(T_EXPOSURE, 0)->c[exposure].value),
        Py_NewRef(HOLE(T_STRUCTURE, 0)->c[structure].value),
        PyLong_FromLongLong(small_v),
        PyLong_FromLongLong(big_v),
        antes ? PyLong_FromLongLong(a1_v) : Py_NewRef(Py_None),
        antes && have_a2 ? PyLong_FromLongLong(a2_v) : Py_NewRef(Py_None),
        antes ? Py_NewRef(Py_None) : PyLong_FromLongLong(a1_v),
        antes ? Py_NewRef(Py_None) : PyLong_FromLongLong(a2_v),
        started,
        zone);
    if (head == NULL)
        return FAIL;
    /* the profile's rules and the forced bets must agree: build.py's check, remembered */
    {
        int key = rule_key(profile, vela, wild, exposure, antes, have_a2);
        if (rule_answers[key] == 0) {
            int yes;
            PyObject *r = PyObject_CallOneArg(header_accepted, head);
            if (r == NULL) {
                Py_DECREF(head);
                return FAIL;
            }
            yes = PyObject_IsTrue(r);
            Py_DECREF(r);
            if (yes < 0) {
                Py_DECREF(head);
                return FAIL;
            }
            rule_answers[key] = yes ? 1 : 2;
        }
        if (rule_answers[key] != 1) {
            Py_DECREF(head);
            return DECLINE;
        }
    }
    *out = head;
    return OK;
}

/* ------------------------------------------------------ table and seats */

static int
table(Hand *h, const char *p, const char *e, PyObject **out)
{
    /* "Table '" TABLE_NAME "' " INT "-max Seat #" INT " is the button"; the tail is read from the end */
    const Kind *T = special[SP_TABLE];
    const Lit *sep, *mid;
    const char *q = e, *name0, *name1, *r;
    long max_seats = 0, button = 0;
    if (T == NULL || !EATL(p, e, T, 0))
        return DECLINE;
    sep = &T->lit[1];
    mid = &T->lit[2];
    name0 = p;
    if (!ends_lit(p, e, &T->lit[3]))
        return DECLINE;
    q = e - T->lit[3].n;
    r = q;
    while (r > name0 && DIG(r[-1]))
        r--;
    if (r == q || q - r > MAX_INT_DIGITS || r - name0 < mid->n || memcmp(r - mid->n, mid->s, (size_t)mid->n) != 0)
        return DECLINE;
    int_token(r, q, &button);
    q = r - mid->n;
    r = q;
    while (r > name0 && DIG(r[-1]))
        r--;
    if (r == q || q - r > MAX_INT_DIGITS || r - name0 < sep->n || memcmp(r - sep->n, sep->s, (size_t)sep->n) != 0)
        return DECLINE;
    int_token(r, q, &max_seats);
    if (max_seats > MAX_SEAT || button > MAX_SEAT)
        return DECLINE;
    name1 = r - sep->n;
    /* TABLE_NAME: [^\n']+(?:'[^\n']+)* -- no quote first, last or twice in a row */
    if (name1 <= name0 || name0[0] == table_quote || name1[-1] == table_quote)
        return DECLINE;
    for (r = name0; r + 1 < name1; r++) {
        if (r[0] == table_quote && r[1] == table_quote)
            return DECLINE;
    }
    h->max_seats = max_seats;
    *out = BUILD(C_TABLE, line_no(h, 1), text_str(name0, name1), PyLong_FromLong(max_seats), PyLong_FromLong(button));
    return *out == NULL ? FAIL : OK;
}

static Py_ssize_t
chars_in(const char *p, Py_ssize_t n)
{
    Py_ssize_t k, c = 0;
    for (k = 0; k < n; k++) {
        if (((unsigned char)p[k] & 0xC0) != 0x80)
            c++;
    }
    return c;
}

static int
seat(Hand *h, long long k, const Kind *S, const char *p, const char *e)
{
    /* "Seat " INT ": " SEAT_NAME " (" AMOUNT " in chips)"; the name ends at the last " (" */
    const Lit *open_lit = &S->lit[2];
    long number;
    long long stack;
    const char *name0, *open = NULL, *r;
    SeatName *s;
    int i;
    p += S->lit[0].n; /* "Seat ": read_hand saw it */
    if ((p = int_token(p, e, &number)) == NULL || !EATL(p, e, S, 1))
        return DECLINE;
    name0 = p;
    for (r = e - open_lit->n; r > name0; r--) {
        if (memcmp(r, open_lit->s, (size_t)open_lit->n) == 0) {
            open = r;
            break;
        }
    }
    if (open == NULL)
        return DECLINE;
    r = open + open_lit->n;
    if ((r = amount(h, r, e, &stack)) == NULL || !ISL(r, e, S, 3))
        return DECLINE;
    /* build.py's seat checks: each number once, on the table, each name once */
    if (h->nseats >= MAX_SEATS || number < 1 || number > h->max_seats)
        return DECLINE;
    for (i = 0; i < h->nseats; i++) {
        s = &h->seats[i];
        if (s->seat == number || (s->len == open - name0 && memcmp(s->name, name0, (size_t)s->len) == 0))
            return DECLINE;
    }
    s = &h->seats[h->nseats];
    s->name = name0;
    s->len = open - name0;
    s->chars = chars_in(name0, s->len);
    s->seat = number;
    s->str = text_str(name0, open);
    if (s->str == NULL)
        return FAIL;
    h->nseats++;
    return push(&h->seat_objs, BUILD(C_SEAT, line_no(h, k), PyLong_FromLong(number), Py_NewRef(s->str), PyLong_FromLongLong(stack)));
}

static void
order_names(Hand *h)
{
    /* longest first, seat-line order among equals: build.py's sorted(key=-len) */
    int i, j;
    for (i = 0; i < h->nseats; i++) {
        int v = h->order[i] = i;
        for (j = i; j > 0 && h->seats[h->order[j - 1]].chars < h->seats[v].chars; j--)
            h->order[j] = h->order[j - 1];
        h->order[j] = v;
    }
}

/* -------------------------------------------------------------- body */

#define ADD(obj) push(&h->events, (obj))

static int
place(Hand *h, int allowed)
{
    return (allowed >> h->section) & 1;
}

/* "" or exactly ALL_IN (" and is all-in") after an amount */
static int
all_in(const char *p, const char *e, int *out)
{
    if (p == e) {
        *out = 0;
        return 1;
    }
    if (is_lit(p, e, WORD(T_ALL_IN, 0))) {
        *out = 1;
        return 1;
    }
    return 0;
}

/* DESCRIPTION, [a-z][^()\n]*, is all of [p, e) */
static int
description(const char *p, const char *e)
{
    if (p >= e || *p < 'a' || *p > 'z')
        return 0;
    for (; p < e; p++) {
        if (*p == '(' || *p == ')')
            return 0;
    }
    return 1;
}

/* The line as one GENERIC kind led by a seated name (p just after the name).
 *
 * NOMATCH exactly when the kind's rule does not have this tail; a tail the rule takes but
 * build.py would refuse here (the wrong section, another currency) or that this code cannot
 * hold (huge numbers) is DECLINE.  So syntax is checked first, then place and money. */
static int
player_kind(Hand *h, long long k, const Kind *K, PyObject *who, const char *p, const char *e)
{
    PyObject *cs;
    Raw r1, r2;
    long long v1, v2;
    long n = 0;
    int ai, blind, pot;
    const char *q;

    if (!EATL(p, e, K, 0))
        return NOMATCH;
    switch (K->shape) {
    case SH_PLAIN:
        if (p != e)
            return NOMATCH;
        return place(h, K->allowed) ? ADD(KBUILD(K, line_no(h, k), Py_NewRef(who))) : DECLINE;
    case SH_AMOUNT:
        if ((p = raw_amount(p, e, &r1)) == NULL || !all_in(p, e, &ai))
            return NOMATCH;
        if (!place(h, K->allowed) || !units(h, &r1, &v1))
            return DECLINE;
        return ADD(KBUILD(K, line_no(h, k), Py_NewRef(who), PyLong_FromLongLong(v1), bool_ref(ai)));
    case SH_BLIND:
        if ((blind = eat_choice(&p, e, HOLE(T_BLIND, 0))) < 0 || !EATL(p, e, K, 1) || (p = raw_amount(p, e, &r1)) == NULL || !all_in(p, e, &ai))
            return NOMATCH;
        if (!place(h, K->allowed) || !units(h, &r1, &v1))
            return DECLINE;
        return ADD(KBUILD(K, line_no(h, k), Py_NewRef(who), Py_NewRef(HOLE(T_BLIND, 0)->c[blind].value), PyLong_FromLongLong(v1), bool_ref(ai)));
    case SH_RAISE:
        if ((p = raw_amount(p, e, &r1)) == NULL || !EATL(p, e, K, 1) || (p = raw_amount(p, e, &r2)) == NULL || !all_in(p, e, &ai))
            return NOMATCH;
        if (!place(h, K->allowed) || !units(h, &r1, &v1) || !units(h, &r2, &v2))
            return DECLINE;
        return ADD(KBUILD(K, line_no(h, k), Py_NewRef(who), PyLong_FromLongLong(v1), PyLong_FromLongLong(v2), bool_ref(ai)));
    case SH_CARDS:
    case SH_SHOW:
        if ((q = cards(p, e, &cs)) == NULL)
            return NOMATCH;
        if (cs == NULL)
            return FAIL;
        /* SH_SHOW: the description runs to the closing literal at the end of the line */
        if (K->shape == SH_SHOW ? !(EATL(q, e, K, 1) && e - q > K->lit[2].n && ends_lit(q, e, &K->lit[2]) && description(q, e - K->lit[2].n))
                                : !ISL(q, e, K, 1)) {
            Py_DECREF(cs);
            return NOMATCH;
        }
        if (!place(h, K->allowed)) {
            Py_DECREF(cs);
            return DECLINE;
        }
        if (K->shape == SH_SHOW)
            return ADD(KBUILD(K, line_no(h, k), Py_NewRef(who), cs, text_str(q, e - K->lit[2].n)));
        return ADD(KBUILD(K, line_no(h, k), Py_NewRef(who), cs));
    case SH_COLLECT: {
        /* POT: the pots without a number, or side pot-<n> */
        const Hole *pots = HOLE(T_POT, 1);
        PyObject *value;
        if ((p = raw_amount(p, e, &r1)) == NULL || !EATL(p, e, K, 1))
            return NOMATCH;
        if ((pot = one_choice(p, e, pots)) >= 0)
            value = pots->c[pot].value;
        else if (EATW(p, e, T_POT, 0) && p < e && *p != '0' && int_token(p, e, &n) == e) /* [1-9][0-9]* */
            value = HOLE(T_POT, 0)->c[0].value;
        else
            return NOMATCH;
        if (n < 0 || n > MAX_SEAT || !place(h, K->allowed) || !units(h, &r1, &v1))
            return DECLINE;
        return ADD(KBUILD(K, line_no(h, k), Py_NewRef(who), PyLong_FromLongLong(v1), Py_NewRef(value), PyLong_FromLong(n)));
    }
    case SH_CHAT:
        /* [CHAT] and the closing literal: whatever stands before it at the end of the line */
        if (!ends_lit(p, e, &K->lit[1]))
            return NOMATCH;
        return place(h, K->allowed) ? ADD(KBUILD(K, line_no(h, k), Py_NewRef(who), text_str(p, e - K->lit[1].n))) : DECLINE;
    case SH_INT:
        if (int_token(p, e, &n) != e)
            return NOMATCH;
        return n >= 0 && n <= MAX_SEAT && place(h, K->allowed) ? ADD(KBUILD(K, line_no(h, k), Py_NewRef(who), PyLong_FromLong(n))) : DECLINE;
    }
    return NOMATCH;
}

/* What follows a seated name at the start of a line (p is just after the name): the first
 * GENERIC kind, in the table's order, whose rule has this tail; NOMATCH when none has (then
 * build.py reads the line with another name, or as another kind). */
static int
player_line(Hand *h, long long k, int who_index, const char *p, const char *e)
{
    PyObject *who = h->seats[who_index].str;
    int j, r;
    for (j = 0; j < nplayer; j++) {
        const Kind *K = &kinds[player_kinds[j]];
        /* most kinds differ in their literal's first three bytes (": c", ": f", " s"): a cheap look first */
        if (K->lit[0].n >= 3 && (e - p < 3 || p[2] != K->lit[0].s[2] || p[1] != K->lit[0].s[1] || p[0] != K->lit[0].s[0]))
            continue;
        if ((r = player_kind(h, k, K, who, p, e)) != NOMATCH)
            return r;
    }
    return NOMATCH;
}

static int
deal(Hand *h, long long k, const Kind *D, const char *p, const char *e)
{
    /* "Dealt to " PLAYER [" [" CARDS "]" [" [" CARDS "]"]] */
    int j, who = -1;
    PyObject *known = NULL, *new = NULL;
    if (!place(h, IN_PLAY))
        return DECLINE;
    p += D->lit[0].n;
    for (j = 0; j < h->nseats; j++) {
        SeatName *s = &h->seats[h->order[j]];
        if (e - p >= s->len && memcmp(p, s->name, (size_t)s->len) == 0 && HASL(p + s->len, e, D, 1)) {
            who = h->order[j];
            break;
        }
    }
    if (who < 0) {
        /* no cards: the line is exactly "Dealt to <name>" */
        for (j = 0; j < h->nseats; j++) {
            SeatName *s = &h->seats[h->order[j]];
            if (e - p == s->len && memcmp(p, s->name, (size_t)s->len) == 0) {
                who = h->order[j];
                break;
            }
        }
        if (who < 0)
            return DECLINE;
        return ADD(KBUILD(D, line_no(h, k), Py_NewRef(h->seats[who].str), Py_NewRef(Py_None), Py_NewRef(Py_None)));
    }
    p += h->seats[who].len + D->lit[1].n;
    if ((p = cards(p, e, &known)) == NULL)
        return DECLINE;
    if (known == NULL)
        return FAIL;
    if (!EATL(p, e, D, 2))
        goto decline;
    if (EATL(p, e, D, 3)) {
        if ((p = cards(p, e, &new)) == NULL)
            goto decline;
        if (new == NULL) {
            Py_DECREF(known);
            return FAIL;
        }
        if (!ISL(p, e, D, 4)) {
            Py_DECREF(new);
            goto decline;
        }
    }
    else if (p != e)
        goto decline;
    return ADD(KBUILD(D, line_no(h, k), Py_NewRef(h->seats[who].str), known, new ? new : Py_NewRef(Py_None)));
decline:
    Py_DECREF(known);
    return DECLINE;
}

static int
uncalled(Hand *h, long long k, const Kind *U, const char *p, const char *e)
{
    /* "Uncalled bet (" AMOUNT ") returned to " PLAYER: the longest name that ends the line */
    const Lit *mid = &U->lit[1];
    int j, who = -1;
    const char *tail = NULL;
    long long v;
    if (!place(h, IN_BODY))
        return DECLINE;
    for (j = 0; j < h->nseats; j++) {
        SeatName *s = &h->seats[h->order[j]];
        if (e - p >= s->len + mid->n + U->lit[0].n && memcmp(e - s->len, s->name, (size_t)s->len) == 0 &&
            memcmp(e - s->len - mid->n, mid->s, (size_t)mid->n) == 0) {
            who = h->order[j];
            tail = e - s->len - mid->n;
            break;
        }
    }
    if (who < 0)
        return DECLINE;
    p += U->lit[0].n;
    if ((p = amount(h, p, tail, &v)) == NULL || p != tail)
        return DECLINE;
    return ADD(KBUILD(U, line_no(h, k), Py_NewRef(h->seats[who].str), PyLong_FromLongLong(v)));
}

/* exactly one card, then the kind's closing literal i and the end; -1 otherwise */
static int
one_card(const Kind *K, int i, const char *p, const char *e)
{
    if (e - p < 2 || !ISL(p + 2, e, K, i))
        return -1;
    return card_at(p);
}

static int
outcome(Hand *h, long long k, const char *p, const char *e)
{
    /* "Seat " INT ": " PLAYER [BUTTON] [BLIND_MARK] <outcome> */
    const Kind *F = special[SP_SEAT_FOLDED], *W = special[SP_SEAT_WON], *L = special[SP_SEAT_LOST];
    const Kind *M = special[SP_SEAT_MUCKED], *C = special[SP_SEAT_COLLECTED], *O; /* O: the outcome read */
    const Hole *marks = HOLE(T_BLIND_MARK, 0), *streets = HOLE(T_FOLD_STREET, 0);
    long number;
    int who = -1, j, button = 0, blind, street = -1;
    PyObject *cs = NULL;
    const char *desc = NULL, *q;
    long long v = -1; /* the amount won or collected; -1: none */
    if (F == NULL || h->section != SUMMARY || !h->has_total)
        return DECLINE;
    p += F->lit[0].n;
    if ((p = int_token(p, e, &number)) == NULL || !EATL(p, e, F, 1))
        return DECLINE;
    for (j = 0; j < h->nseats; j++) {
        SeatName *s = &h->seats[h->order[j]];
        if (e - p > s->len && memcmp(p, s->name, (size_t)s->len) == 0 && p[s->len] == ' ') {
            who = h->order[j];
            break;
        }
    }
    if (who < 0 || h->seats[who].seat != number || number <= h->last_outcome_seat)
        return DECLINE;
    p += h->seats[who].len;
    if (EATW(p, e, T_BUTTON, 0))
        button = 1;
    blind = eat_choice(&p, e, marks);
    if (EATL(p, e, F, 2)) {
        O = F;
        if ((street = one_choice(p, e, streets)) < 0)
            return DECLINE;
    }
    else if (M != NULL && ISL(p, e, M, 2))
        O = M;
    else if (C != NULL && EATL(p, e, C, 2)) {
        O = C;
        if ((p = amount(h, p, e, &v)) == NULL || !ISL(p, e, C, 3))
            return DECLINE;
    }
    else if ((W != NULL && HASL(p, e, W, 2)) || (L != NULL && HASL(p, e, L, 2))) {
        /* won and lost: the cards shown, then the result */
        const Kind *S = W != NULL && HASL(p, e, W, 2) ? W : L;
        p += S->lit[2].n;
        if ((q = cards(p, e, &cs)) == NULL)
            return DECLINE;
        if (cs == NULL)
            return FAIL;
        p = q;
        O = NULL;
        if (S == W && EATL(p, e, W, 3)) {
            O = W;
            if ((p = amount(h, p, e, &v)) != NULL && !EATL(p, e, W, 4))
                p = NULL;
        }
        else if (L != NULL && (S == L || same_lit(&L->lit[2], &W->lit[2])) && EATL(p, e, L, 3))
            O = L;
        else
            p = NULL;
        if (p == NULL || !description(p, e)) { /* the description runs to the end of the line */
            Py_DECREF(cs);
            return DECLINE;
        }
        desc = p;
    }
    else
        return DECLINE;
    h->last_outcome_seat = number;
    return push(&h->outcomes, BUILD(C_SEAT_OUTCOME,
        line_no(h, k), PyLong_FromLong(number), Py_NewRef(h->seats[who].str), bool_ref(button),
        Py_NewRef(blind < 0 ? Py_None : marks->c[blind].value), Py_NewRef(O->value),
        Py_NewRef(street < 0 ? Py_None : streets->c[street].value),
        cs ? cs : Py_NewRef(Py_None),
        v >= 0 ? PyLong_FromLongLong(v) : Py_NewRef(Py_None),
        desc ? text_str(desc, e) : Py_NewRef(Py_None)));
}

static int
pots(Hand *h, const Kind *P, const char *p, const char *e)
{
    /* "Main pot " AMOUNT "." (" Side pot-" N " " AMOUNT ".")*, numbered 1, 2, ..., adding up to the total */
    long long main_pot, side, sum;
    long n, expect = 1;
    Vec sides = {NULL, 0, 0};
    PyObject *t;
    if (h->section != SUMMARY || !h->has_total || h->has_main || h->outcomes.n)
        return DECLINE;
    p += P->lit[0].n;
    if ((p = amount(h, p, e, &main_pot)) == NULL || !EATL(p, e, P, 1) || main_pot > h->total)
        return DECLINE;
    sum = main_pot;
    while (p < e) {
        /* sum <= total throughout, so the sum cannot overflow however many pots the line lists;
         * a sum past the total is build.py's "do not add up" */
        if (!EATW(p, e, T_SIDE_POTS, 0) || p >= e || *p == '0' || (p = int_token(p, e, &n)) == NULL || n != expect ||
            !EATW(p, e, T_SIDE_POTS, 1) || (p = amount(h, p, e, &side)) == NULL || !EATW(p, e, T_SIDE_POTS, 2) ||
            side > h->total - sum) {
            vec_clear(&sides);
            return DECLINE;
        }
        expect++;
        sum += side;
        if (push(&sides, PyLong_FromLongLong(side)) < 0) {
            vec_clear(&sides);
            return FAIL;
        }
    }
    if (sum != h->total) {
        vec_clear(&sides);
        return DECLINE;
    }
    t = vec_tuple(&sides);
    vec_clear(&sides);
    if (t == NULL)
        return FAIL;
    h->has_main = 1;
    h->main_pot = main_pot;
    Py_XSETREF(h->side_pots, t);
    return OK;
}

/* Chatter about someone who holds no seat (start symbol `stranger`): the name is what stands
 * before the chatter's text.  STRANGER, [^\x1f\n].*?(?= is disconnected$| ...), is lazy, so
 * in `said` the name ends at the first ` said, "` after the first character.  The kinds the
 * grammar also has as `stranger`: those of one fixed text first, then chat, then a number. */
static int
stranger(Hand *h, long long k, const char *p, const char *e)
{
    const char *q;
    int j, shape;
    long n;
    if (!place(h, IN_BODY))
        return DECLINE;
    for (shape = 0; shape < 3; shape++) {
        for (j = 0; j < nplayer; j++) {
            const Kind *K = &kinds[player_kinds[j]];
            if (!K->stranger)
                continue;
            if (shape == 0 && K->shape == SH_PLAIN && e - p > K->lit[0].n && ends_lit(p, e, &K->lit[0]))
                return ADD(KBUILD(K, line_no(h, k), text_str(p, e - K->lit[0].n)));
            if (shape == 1 && K->shape == SH_CHAT && ends_lit(p, e, &K->lit[1])) {
                const Lit *said = &K->lit[0];
                for (q = p + 1; e - q >= said->n + K->lit[1].n; q++) {
                    if (memcmp(q, said->s, (size_t)said->n) == 0)
                        return ADD(KBUILD(K, line_no(h, k), text_str(p, q), text_str(q + said->n, e - K->lit[1].n)));
                }
                return DECLINE;
            }
            if (shape == 2 && K->shape == SH_INT) {
                const Lit *joins = &K->lit[0];
                for (q = e; q > p && DIG(q[-1]); q--)
                    ;
                if (q < e && e - q <= MAX_INT_DIGITS && q - p > joins->n && memcmp(q - joins->n, joins->s, (size_t)joins->n) == 0) {
                    int_token(q, e, &n);
                    if (n > MAX_SEAT)
                        return DECLINE;
                    return ADD(KBUILD(K, line_no(h, k), text_str(p, q - joins->n), PyLong_FromLong(n)));
                }
            }
        }
    }
    return DECLINE;
}

/* One body line, read as build.py reads it: the seated names that begin it followed by ':' or
 * ' ' (longest first) until one gives a player line; then the literal kinds, then `stranger`. */
static int
body_line(Hand *h, long long k, const char *p, const char *e)
{
    const Kind *K;
    int j, r, named = 0, c;
    long long v, v2;
    for (j = 0; j < h->nseats; j++) {
        SeatName *s = &h->seats[h->order[j]];
        if (e - p > s->len && (p[s->len] == ':' || p[s->len] == ' ') && memcmp(p, s->name, (size_t)s->len) == 0) {
            if ((r = player_line(h, k, h->order[j], p + s->len, e)) != NOMATCH)
                return r;
            named = 1;
        }
    }
    /* A deal is read here by the longest name followed by " [", which is the builder's reading
     * only when no name begins the line (else it tries those names first): decline that case. */
    if ((K = special[SP_DEAL]) != NULL && HASL(p, e, K, 0))
        return named ? DECLINE : deal(h, k, K, p, e);
    if ((K = special[SP_SEAT_FOLDED]) != NULL && HASL(p, e, K, 0))
        return outcome(h, k, p, e);
    if ((K = special[SP_STREET]) != NULL && HASL(p, e, K, 0)) {
        const Hole *streets = HOLE(T_STREET_NAME, 0);
        const char *q = p + K->lit[0].n;
        int i = eat_choice(&q, e, streets);
        if (i >= 0 && ISL(q, e, K, 1)) {
            /* the street's number (its index in events.STREET_NAMES) keeps the order */
            if (h->section == SUMMARY || h->section == SHOWDOWN || streets->c[i].number != h->street + 1)
                return DECLINE;
            h->street = (int)streets->c[i].number;
            h->section = STREETS;
            return ADD(KBUILD(K, line_no(h, k), Py_NewRef(streets->c[i].value)));
        }
    }
    if ((K = special[SP_VELA]) != NULL && HASL(p, e, K, 0)) {
        if ((c = one_card(K, 1, p + K->lit[0].n, e)) < 0 || h->section != STREETS || h->street != last_street || h->had_vela)
            return DECLINE;
        h->had_vela = 1;
        return ADD(KBUILD(K, line_no(h, k), PyLong_FromLong(c)));
    }
    if ((K = special[SP_SHOW_DOWN]) != NULL && ISL(p, e, K, 0)) {
        if (h->section != STREETS)
            return DECLINE;
        h->section = SHOWDOWN;
        return ADD(KBUILD(K, line_no(h, k)));
    }
    if ((K = special[SP_SUMMARY]) != NULL && ISL(p, e, K, 0)) {
        if (h->section == SUMMARY)
            return DECLINE;
        h->section = SUMMARY;
        h->summary_line = h->line0 + k;
        return OK;
    }
    if ((K = special[SP_UNCALLED]) != NULL && HASL(p, e, K, 0))
        return uncalled(h, k, K, p, e);
    for (j = 0; j < nliteral; j++) {
        K = &kinds[literal_kinds[j]];
        if (ISL(p, e, K, 0))
            return place(h, K->allowed) ? ADD(KBUILD(K, line_no(h, k))) : DECLINE;
    }
    if ((K = special[SP_TOTAL]) != NULL && EATL(p, e, K, 0)) {
        if (h->section != SUMMARY || h->has_total || h->outcomes.n || (p = amount(h, p, e, &v)) == NULL ||
            !EATL(p, e, K, 1) || (p = amount(h, p, e, &v2)) == NULL || p != e)
            return DECLINE;
        h->has_total = 1;
        h->total = v;
        h->rake = v2;
        return OK;
    }
    if ((K = special[SP_POTS]) != NULL && HASL(p, e, K, 0))
        return pots(h, K, p, e);
    if ((K = special[SP_SUMMARY_VELA]) != NULL && HASL(p, e, K, 0)) {
        c = one_card(K, 1, p + K->lit[0].n, e);
        if (c < 0 || h->section != SUMMARY || !h->has_total || h->vela >= 0 || h->outcomes.n)
            return DECLINE;
        h->vela = c;
        return OK;
    }
    /* no seated name and no literal kind begins the line: build.py tries it as `stranger` */
    return stranger(h, k, p, e);
}

/* ------------------------------------------------------------ a hand */

static int
read_hand(Hand *h, const char *p, const char *e, PyObject *source, PyObject **out)
{
    const char *eol;
    long long k = 0;
    int r;
    PyObject *head = NULL, *tab = NULL, *seats_t = NULL, *events_t = NULL, *outcomes_t = NULL, *summary, *money;

    if (special[SP_SEAT] == NULL) /* the seat lines are not read here */
        return DECLINE;
    /* header */
    eol = memchr(p, '\n', (size_t)(e - p));
    if (eol == NULL)
        return DECLINE;
    if ((r = header(h, p, eol, &head)) != OK)
        return r;
    /* table */
    p = eol + 1;
    k = 1;
    eol = memchr(p, '\n', (size_t)(e - p));
    if (eol == NULL)
        eol = e;
    if ((r = table(h, p, eol, &tab)) != OK)
        goto done;
    /* seats: every line that starts with "Seat "; p .. eol is then the first body line */
    for (;;) {
        if (eol >= e) { /* the hand ends before its body */
            r = DECLINE;
            goto done;
        }
        p = eol + 1;
        eol = memchr(p, '\n', (size_t)(e - p));
        if (eol == NULL)
            eol = e;
        k++;
        if (!HASL(p, eol, special[SP_SEAT], 0))
            break;
        if ((r = seat(h, k, special[SP_SEAT], p, eol)) != OK)
            goto done;
    }
    if (h->nseats == 0) {
        r = DECLINE;
        goto done;
    }
    order_names(h);
    /* body: p .. eol is line k */
    for (;;) {
        if (p == eol || k >= MAX_HAND_LINES) { /* a blank line, or more lines than build.py accepts */
            r = DECLINE;
            goto done;
        }
        if ((r = body_line(h, k, p, eol)) != OK)
            goto done;
        if (eol >= e)
            break;
        p = eol + 1;
        eol = memchr(p, '\n', (size_t)(e - p));
        if (eol == NULL)
            eol = e;
        k++;
    }
    if (h->section != SUMMARY || !h->has_total || h->outcomes.n < h->nseats) {
        r = DECLINE;
        goto done;
    }
    seats_t = vec_tuple(&h->seat_objs);
    events_t = vec_tuple(&h->events);
    outcomes_t = vec_tuple(&h->outcomes);
    if (seats_t == NULL || events_t == NULL || outcomes_t == NULL)
        goto fail;
    summary = BUILD(C_SUMMARY,
        PyLong_FromLongLong(h->summary_line),
        PyLong_FromLongLong(h->total),
        PyLong_FromLongLong(h->rake),
        h->has_main ? PyLong_FromLongLong(h->main_pot) : Py_NewRef(Py_None),
        h->side_pots ? Py_NewRef(h->side_pots) : PyTuple_New(0),
        h->vela >= 0 ? PyLong_FromLong(h->vela) : Py_NewRef(Py_None),
        outcomes_t);
    outcomes_t = NULL;
    money = BUILD(C_MONEY,
        Py_NewRef(h->sym ? HOLE(T_AMOUNT, 0)->c[h->sym - 1].value : empty_str),
        bool_ref(h->cents), bool_ref(h->flags & 1), bool_ref(h->flags & 2));
    *out = BUILD(C_HAND, head, tab, seats_t, events_t, summary, money, Py_NewRef(source));
    return *out == NULL ? FAIL : OK;
fail:
    r = FAIL;
done:
    Py_XDECREF(head);
    Py_XDECREF(tab);
    Py_XDECREF(seats_t);
    Py_XDECREF(events_t);
    Py_XDECREF(outcomes_t);
    return r;
}

static PyObject *
parse_hand(PyObject *self, PyObject *args)
{
    PyObject *text, *first, *source, *out = NULL;
    const char *p, *e, *q;
    Py_ssize_t n;
    long long line0;
    Hand h;
    int r;
    if (!PyArg_ParseTuple(args, "OOO:parse_hand", &text, &first, &source))
        return NULL;
    if (!configured) {
        PyErr_SetString(PyExc_RuntimeError, "_scan.configure() was not called");
        return NULL;
    }
    if (!PyUnicode_Check(text) || !PyLong_CheckExact(first) || !PyUnicode_Check(source))
        Py_RETURN_NONE; /* whatever build.py makes of them */
    line0 = PyLong_AsLongLong(first);
    if (line0 == -1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError))
            return NULL;
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (line0 > ((long long)1 << 60) || line0 < -((long long)1 << 60))
        Py_RETURN_NONE;
    p = PyUnicode_AsUTF8AndSize(text, &n);
    if (p == NULL) { /* lone surrogates: build.py reads them */
        if (!PyErr_ExceptionMatches(PyExc_UnicodeError))
            return NULL;
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    e = p + n;
    /* control characters other than the line end (the placeholder \x1f among them): build.py */
    for (q = p; q < e; q++) {
        if ((unsigned char)*q < 0x20 && *q != '\n')
            Py_RETURN_NONE;
    }
#ifdef SCAN_EXACT_COPY
    /* Sanitizer builds (docs/performance.md): read a copy with no terminator, so that a read
     * past the end of the text is outside the allocation and AddressSanitizer reports it. */
    {
        char *copy = PyMem_RawMalloc(n ? (size_t)n : 1);
        if (copy == NULL)
            return PyErr_NoMemory();
        memcpy(copy, p, (size_t)n);
        p = copy;
        e = copy + n;
    }
#endif
    memset(&h, 0, sizeof h);
    h.line0 = line0;
    h.street = -1;
    h.vela = -1;
    h.last_outcome_seat = -1;
    h.section = PRE;
    r = read_hand(&h, p, e, source, &out);
    hand_clear(&h);
#ifdef SCAN_EXACT_COPY
    PyMem_RawFree((void *)p);
#endif
    if (r == FAIL)
        return NULL;
    if (r != OK)
        Py_RETURN_NONE;
    return out;
}

/* newlines(text) -> the number of '\n' in text, or -1 where a line after the first is empty or only
 * whitespace (str.isspace's), which is what reader.py's _BLANKISH_LINE finds: the reader's splitter
 * asks both of every block between blank lines, and one pass here costs a few instructions a character
 * where the regular expression's search and str.count cost about eleven (docs/performance.md). */
static PyObject *
newlines(PyObject *self, PyObject *text)
{
    Py_ssize_t n, i, j, count = 0;
    int kind;
    const void *data;
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "newlines(text): a str");
        return NULL;
    }
    n = PyUnicode_GET_LENGTH(text);
    kind = PyUnicode_KIND(text);
    data = PyUnicode_DATA(text);
    /* a loop a kind of string, not PyUnicode_READ's switch at every character: most texts are
     * one byte a character (memchr finds each line end) or two (a euro sign) */
#define NEWLINES_AFTER(T)                                       \
    do {                                                        \
        const T *s = (const T *)data;                           \
        count++;                                                \
        for (j = i + 1; j < n; j++) {                           \
            Py_UCS4 c = s[j];                                   \
            if (c == '\n' || !Py_UNICODE_ISSPACE(c))            \
                break;                                          \
        }                                                       \
        if (j == n || s[j] == '\n')                             \
            return PyLong_FromLong(-1);                         \
        i = j - 1;                                              \
    } while (0)
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *s = (const Py_UCS1 *)data;
        for (i = 0; i < n; i++) {
            const Py_UCS1 *end = memchr(s + i, '\n', (size_t)(n - i));
            if (end == NULL)
                break;
            i = end - s;
            NEWLINES_AFTER(Py_UCS1);
        }
    } else if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *s = (const Py_UCS2 *)data;
        for (i = 0; i < n; i++) {
            if (s[i] != '\n')
                continue;
            NEWLINES_AFTER(Py_UCS2);
        }
    } else {
        const Py_UCS4 *s = (const Py_UCS4 *)data;
        for (i = 0; i < n; i++) {
            if (s[i] != '\n')
                continue;
            NEWLINES_AFTER(Py_UCS4);
        }
    }
#undef NEWLINES_AFTER
    return PyLong_FromSsize_t(count);
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(classes, kinds, terminals, zone_info, header_accepted) -> the kinds not read: the hand's classes, "
     "the table of line kinds with their shapes and literals, the terminals' words (by the skeletons of TERMINALS), and the builder's checks"},
    {"parse_hand", parse_hand, METH_VARARGS,
     "parse_hand(text, first_line, source) -> Hand | None: None where build.py must read the hand"},
    {"newlines", newlines, METH_O,
     "newlines(text) -> the number of line ends in text, or -1 where a line after the first is empty or only whitespace"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_scan",
    "The parser's accelerator (see hhtool/_native/_scan.c, hhtool/history/parse.py and docs/architecture.md).", -1, methods,
};

PyMODINIT_FUNC
PyInit__scan(void)
{
    PyObject *m, *skeletons;
    int i;
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL)
        return NULL;
    if (empty_str == NULL) {
        if ((empty_str = PyUnicode_FromString("")) == NULL)
            return NULL;
        PyUnicode_InternInPlace(&empty_str);
    }
    if ((m = PyModule_Create(&module)) == NULL)
        return NULL;
    /* TERMINALS: the skeletons, for parse.py to fit the grammar's patterns to */
    if ((skeletons = PyDict_New()) == NULL || PyModule_AddObject(m, "TERMINALS", skeletons) < 0) {
        Py_XDECREF(skeletons);
        Py_DECREF(m);
        return NULL;
    }
    for (i = 0; i < T_COUNT; i++) {
        PyObject *sk = PyUnicode_FromString(TERMINALS[i][1]);
        if (sk == NULL || PyDict_SetItemString(skeletons, TERMINALS[i][0], sk) < 0) {
            Py_XDECREF(sk);
            Py_DECREF(m);
            return NULL;
        }
        Py_DECREF(sk);
    }
    return m;
}
