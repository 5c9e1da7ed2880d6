/* A small helper of the import's row building (hhtool/store/rows.py), in C.
 *
 * utf8(text): the text's UTF-8, taken from (and left in) the string's own
 * UTF-8 cache, as a read-only memoryview of that cache (no copy: valid while
 * the caller holds the string).  A hand's text is read by the C reader,
 * which makes that cache, then hashed, then handed to polars, which reads
 * the cache again: encoding it once instead of three times saves 15,000
 * instructions a hand at each (a text with a euro sign is not ASCII, and
 * its encoding goes character by character), and the view saves the copy
 * of the bytes (5,000 more).
 *
 * epoch_us(t): an aware datetime's microseconds since 1970-01-01 UTC, the
 * integer (t - epoch) // timedelta(microseconds=1) is, from its fields and
 * its utcoffset() (None for a naive one, which the caller then subtracts, to
 * raise as that does).  The subtraction and the floor division of
 * timedeltas cost 6,300 instructions a hand; the fields read from Python
 * (mypyc reads a datetime's attributes as any object's) 4,800.
 *
 *
 * arrow_table(columns, n): a table's columns, the first n values of Python lists,
 * as one Arrow struct array of n rows (the C data interface: an object with
 * __arrow_c_array__), which polars takes without reading a Python value
 * (pl.DataFrame(obj)).  Each column is (name, kind, values, bit): kind "b",
 * "s", "i", "l" an int8/16/32/64 (None a NULL; a value beyond the type raises
 * OverflowError, as polars' own build raises, for the caller's out-of-range
 * path), "t" int64 microseconds as a UTC timestamp, "?" a bool, "u" a str,
 * "n" a str with a line end added (the hands' raw_text), "x" bit `bit` of an
 * int64 as a bool (the seats' statistics flags).  Strings become Arrow's
 * string views ("vu"), the layout polars keeps them in.  polars reading the
 * lists itself costs 100-200 instructions a value (iterating, extracting,
 * pushing each into its array); here 20-40, the copies of the texts included.
 *
 * Built by setup.py beside the mypyc modules; HHTOOL_PURE=1 builds neither:
 * rows.py encodes with str.encode instead, and frames.py has polars read the
 * lists.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static PyObject *
utf8(PyObject *self, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "utf8(text): a str");
        return NULL;
    }
    Py_ssize_t size;
    const char *data = PyUnicode_AsUTF8AndSize(text, &size);
    if (data == NULL)
        return NULL;
    return PyMemoryView_FromMemory((char *)data, size, PyBUF_READ);
}

/* Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
static long long
days_from_civil(long long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const long long era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long long)doe - 719468;
}

static PyObject *utcoffset_name;

static PyObject *
epoch_us(PyObject *self, PyObject *t)
{
    if (!PyDateTime_Check(t)) {
        PyErr_SetString(PyExc_TypeError, "epoch_us(t): a datetime");
        return NULL;
    }
    PyObject *off = PyObject_CallMethodNoArgs(t, utcoffset_name);
    if (off == NULL)
        return NULL;
    if (off == Py_None)
        return off;  /* naive: the caller's subtraction says what of it */
    if (!PyDelta_Check(off)) {
        Py_DECREF(off);
        PyErr_SetString(PyExc_TypeError, "epoch_us(t): utcoffset() is no timedelta");
        return NULL;
    }
    long long days = days_from_civil(PyDateTime_GET_YEAR(t), PyDateTime_GET_MONTH(t), PyDateTime_GET_DAY(t));
    long long seconds = days * 86400 + PyDateTime_DATE_GET_HOUR(t) * 3600 + PyDateTime_DATE_GET_MINUTE(t) * 60
                        + PyDateTime_DATE_GET_SECOND(t)
                        - ((long long)PyDateTime_DELTA_GET_DAYS(off) * 86400 + PyDateTime_DELTA_GET_SECONDS(off));
    long long us = seconds * 1000000 + PyDateTime_DATE_GET_MICROSECOND(t) - PyDateTime_DELTA_GET_MICROSECONDS(off);
    Py_DECREF(off);
    return PyLong_FromLongLong(us);
}


/* ------------------------------------------------------------------ Arrow's C data interface */

struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

#define ARROW_FLAG_NULLABLE 2

/* A column's array: its buffers (validity, values or offsets, data) are malloc'd and freed with it. */
typedef struct {
    const void *buffers[4];  /* validity, values (views), the views' data, its size */
} ColumnData;

static void
release_column(struct ArrowArray *a)
{
    ColumnData *d = a->private_data;
    for (int i = 0; i < 4; i++)
        free((void *)d->buffers[i]);
    free(d);
    a->release = NULL;
}

static void
release_struct(struct ArrowArray *a)
{
    for (int64_t i = 0; i < a->n_children; i++) {
        struct ArrowArray *c = a->children[i];
        if (c->release != NULL)
            c->release(c);
        free(c);
    }
    free(a->children);
    free(a->buffers);
    a->release = NULL;
}

static void
release_schema(struct ArrowSchema *s)
{
    for (int64_t i = 0; i < s->n_children; i++) {
        struct ArrowSchema *c = s->children[i];
        if (c->release != NULL)
            c->release(c);
        free(c);
    }
    free(s->children);
    free((void *)s->name);
    s->release = NULL;
}

static void
release_field(struct ArrowSchema *s)
{
    free((void *)s->name);
    s->release = NULL;
}

/* The validity bitmap of a column with NULLs, made when the first one is met (all valid before it). */
static int
set_null(uint8_t **validity, Py_ssize_t n, Py_ssize_t i)
{
    if (*validity == NULL) {
        size_t bytes = (size_t)(n + 7) / 8;
        *validity = malloc(bytes ? bytes : 1);
        if (*validity == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memset(*validity, 0xff, bytes);
    }
    (*validity)[i >> 3] &= (uint8_t)~(1u << (i & 7));
    return 0;
}

static const char *
int_format(char kind)
{
    switch (kind) {
    case 'b': return "c";
    case 's': return "s";
    case 'i': return "i";
    case 'l': return "l";
    case 't': return "tsu:UTC";
    case '?': case 'x': return "b";
    case 'u': case 'n': return "vu";
    }
    return NULL;
}

/* An int's value when it fits 64 bits: 0, 1 when it does not, -1 with an exception set.  Python 3.11's
   ints of up to two digits (60 bits: every value a hand holds) read from the object itself, as CPython's
   own fast paths do; PyLong_AsLongLongAndOverflow's general path (a byte array for any int past 2**30, the
   seats' flag words) cost 70 instructions a value. */
static inline int
as_int64(PyObject *v, long long *out)
{
#if PY_VERSION_HEX < 0x030C0000 && PyLong_SHIFT == 30
    const digit *dg = ((PyLongObject *)v)->ob_digit;
    switch (Py_SIZE(v)) {
    case 0: *out = 0; return 0;
    case 1: *out = (long long)dg[0]; return 0;
    case -1: *out = -(long long)dg[0]; return 0;
    case 2: *out = (long long)(((unsigned long long)dg[1] << PyLong_SHIFT) | dg[0]); return 0;
    case -2: *out = -(long long)(((unsigned long long)dg[1] << PyLong_SHIFT) | dg[0]); return 0;
    }
#endif
    int overflow;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred())
        return -1;
    if (overflow)
        return 1;
    *out = x;
    return 0;
}

/* A str's UTF-8 (a compact ASCII string's own characters, else its UTF-8 cache, made if need be). */
static inline const char *
utf8_of(PyObject *v, Py_ssize_t *size)
{
    if (PyUnicode_IS_COMPACT_ASCII(v)) {
        *size = PyUnicode_GET_LENGTH(v);
        return (const char *)PyUnicode_DATA(v);
    }
    return PyUnicode_AsUTF8AndSize(v, size);
}

/* The seats' flag words (kind "x"), read once for the 47 columns made of their bits. */
typedef struct {
    PyObject *list;
    int64_t *words;
} Words;

/* One column into `a`; 0, or -1 with an exception set. */
static int
fill_column(struct ArrowArray *a, char kind, PyObject *values, int bit, Py_ssize_t n, Words *words)
{
    PyObject **items = PySequence_Fast_ITEMS(values);
    ColumnData *d = calloc(1, sizeof(ColumnData));
    if (d == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    uint8_t *validity = NULL;
    int64_t nulls = 0;
    a->length = n;
    a->offset = 0;
    a->n_children = 0;
    a->children = NULL;
    a->dictionary = NULL;
    a->buffers = d->buffers;
    a->private_data = d;
    a->release = release_column;
    if (kind == 'u' || kind == 'n') {
        /* Arrow's string views, polars' own layout: 16 bytes a value, a text of up to 12 bytes inside them,
           a longer one's first 4 bytes there and the whole in the one data buffer (its offset there). */
        uint8_t *views = malloc(n ? (size_t)n * 16 : 1);
        d->buffers[1] = views;
        int64_t *sizes = malloc(sizeof(int64_t));
        d->buffers[3] = sizes;
        size_t cap = 4096, at = 0;
        char *data = malloc(cap);
        d->buffers[2] = data;
        if (views == NULL || sizes == NULL || data == NULL)
            goto nomem;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *v = items[i];
            uint8_t *view = views + 16 * i;
            memset(view, 0, 16);
            if (v == Py_None) {
                if (set_null(&validity, n, i) < 0)
                    goto fail;
                nulls++;
                continue;
            }
            if (!PyUnicode_Check(v)) {
                PyErr_Format(PyExc_TypeError, "a str column holds %.100s", Py_TYPE(v)->tp_name);
                goto fail;
            }
            Py_ssize_t size;
            const char *s = utf8_of(v, &size);
            if (s == NULL)
                goto fail;
            size_t len = (size_t)size + (kind == 'n');
            if (len > (size_t)INT32_MAX - at) {
                PyErr_SetString(PyExc_OverflowError, "a str column over 2 GB");
                goto fail;
            }
            int32_t len32 = (int32_t)len;
            memcpy(view, &len32, 4);
            if (len <= 12) {
                memcpy(view + 4, s, (size_t)size);
                if (kind == 'n')
                    view[4 + size] = '\n';
            } else {
                if (at + len > cap) {
                    while (at + len > cap)
                        cap *= 2;
                    char *more = realloc(data, cap);
                    if (more == NULL)
                        goto nomem;
                    d->buffers[2] = data = more;
                }
                memcpy(data + at, s, (size_t)size);
                if (kind == 'n')
                    data[at + (size_t)size] = '\n';
                memcpy(view + 4, s, 4);
                int32_t offset = (int32_t)at;  /* buffer index 0 in view[8..12], zero already */
                memcpy(view + 12, &offset, 4);
                at += len;
            }
        }
        sizes[0] = (int64_t)at;
    } else if (kind == '?' || kind == 'x') {
        size_t bytes = (size_t)(n + 7) / 8;
        uint8_t *bits = calloc(bytes ? bytes : 1, 1);
        d->buffers[1] = bits;
        if (bits == NULL)
            goto nomem;
        if (kind == 'x') {
            if (words->list != values) {
                free(words->words);
                words->list = NULL;
                words->words = malloc(n ? (size_t)n * sizeof(int64_t) : 1);
                if (words->words == NULL)
                    goto nomem;
                for (Py_ssize_t i = 0; i < n; i++) {
                    long long w;
                    int r = PyLong_Check(items[i]) ? as_int64(items[i], &w) : -2;
                    if (r != 0) {
                        if (r > 0)
                            PyErr_SetString(PyExc_OverflowError, "a flag word beyond 64 bits");
                        else if (r == -2)
                            PyErr_Format(PyExc_TypeError, "a bits column holds %.100s", Py_TYPE(items[i])->tp_name);
                        goto fail;
                    }
                    words->words[i] = (int64_t)w;
                }
                words->list = values;
            }
            const int64_t *w = words->words;
            for (Py_ssize_t i = 0; i < n; i++)
                if (((uint64_t)w[i] >> bit) & 1)
                    bits[i >> 3] |= (uint8_t)(1u << (i & 7));
        } else {
            for (Py_ssize_t i = 0; i < n; i++) {
                PyObject *v = items[i];
                if (v == Py_True) {
                    bits[i >> 3] |= (uint8_t)(1u << (i & 7));
                } else if (v == Py_None) {
                    if (set_null(&validity, n, i) < 0)
                        goto fail;
                    nulls++;
                } else if (v != Py_False) {
                    PyErr_Format(PyExc_TypeError, "a bool column holds %.100s", Py_TYPE(v)->tp_name);
                    goto fail;
                }
            }
        }
    } else {
        int width = kind == 'b' ? 1 : kind == 's' ? 2 : kind == 'i' ? 4 : 8;
        long long lo = kind == 'b' ? INT8_MIN : kind == 's' ? INT16_MIN : kind == 'i' ? INT32_MIN : INT64_MIN;
        long long hi = kind == 'b' ? INT8_MAX : kind == 's' ? INT16_MAX : kind == 'i' ? INT32_MAX : INT64_MAX;
        char *out = malloc(n ? (size_t)n * (size_t)width : 1);
        d->buffers[1] = out;
        if (out == NULL)
            goto nomem;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *v = items[i];
            long long x = 0;
            if (v == Py_None) {
                if (set_null(&validity, n, i) < 0)
                    goto fail;
                nulls++;
            } else {
                if (!PyLong_Check(v)) {
                    PyErr_Format(PyExc_TypeError, "an integer column holds %.100s", Py_TYPE(v)->tp_name);
                    goto fail;
                }
                int r = as_int64(v, &x);
                if (r < 0)
                    goto fail;
                if (r > 0 || x < lo || x > hi) {
                    PyErr_SetString(PyExc_OverflowError, "a value beyond its column's integer type");
                    goto fail;
                }
            }
            switch (width) {
            case 1: ((int8_t *)out)[i] = (int8_t)x; break;
            case 2: ((int16_t *)out)[i] = (int16_t)x; break;
            case 4: ((int32_t *)out)[i] = (int32_t)x; break;
            default: ((int64_t *)out)[i] = (int64_t)x; break;
            }
        }
    }
    d->buffers[0] = validity;
    a->null_count = nulls;
    a->n_buffers = (kind == 'u' || kind == 'n') ? 4 : 2;
    return 0;
nomem:
    PyErr_NoMemory();
fail:
    free(validity);
    a->n_buffers = 4;
    release_column(a);
    return -1;
}

typedef struct {
    PyObject_HEAD
    struct ArrowSchema schema;
    struct ArrowArray array;
} ArrowTable;

static void
table_dealloc(ArrowTable *self)
{
    if (self->schema.release != NULL)
        self->schema.release(&self->schema);
    if (self->array.release != NULL)
        self->array.release(&self->array);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static void
schema_capsule_free(PyObject *capsule)
{
    struct ArrowSchema *s = PyCapsule_GetPointer(capsule, "arrow_schema");
    if (s != NULL && s->release != NULL)
        s->release(s);
    free(s);
}

static void
array_capsule_free(PyObject *capsule)
{
    struct ArrowArray *a = PyCapsule_GetPointer(capsule, "arrow_array");
    if (a != NULL && a->release != NULL)
        a->release(a);
    free(a);
}

/* (schema capsule, array capsule), moved out of the table: it can be taken once. */
static PyObject *
table_arrow_c_array(ArrowTable *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (self->array.release == NULL) {
        PyErr_SetString(PyExc_ValueError, "the table's arrays were taken already");
        return NULL;
    }
    struct ArrowSchema *s = malloc(sizeof(*s));
    struct ArrowArray *a = malloc(sizeof(*a));
    if (s == NULL || a == NULL) {
        free(s);
        free(a);
        return PyErr_NoMemory();
    }
    *s = self->schema;
    *a = self->array;
    self->schema.release = NULL;
    self->array.release = NULL;
    PyObject *sc = PyCapsule_New(s, "arrow_schema", schema_capsule_free);
    if (sc == NULL) {
        s->release(s);
        free(s);
        a->release(a);
        free(a);
        return NULL;
    }
    PyObject *ac = PyCapsule_New(a, "arrow_array", array_capsule_free);
    if (ac == NULL) {
        Py_DECREF(sc);
        a->release(a);
        free(a);
        return NULL;
    }
    return Py_BuildValue("(NN)", sc, ac);
}

static PyMethodDef table_methods[] = {
    {"__arrow_c_array__", (PyCFunction)(void (*)(void))table_arrow_c_array, METH_FASTCALL | METH_KEYWORDS,
     "The table as Arrow's C data interface (a struct array): once."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ArrowTableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "hhtool._native._columns.ArrowTable",
    .tp_basicsize = sizeof(ArrowTable),
    .tp_dealloc = (destructor)table_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A table's columns as one Arrow struct array (arrow_table), for pl.DataFrame.",
    .tp_methods = table_methods,
};

static PyObject *
arrow_table(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "arrow_table(columns: list of (name, kind, values, bit), n)");
        return NULL;
    }
    Py_ssize_t n = PyLong_AsSsize_t(args[1]);
    if (n == -1 && PyErr_Occurred())
        return NULL;
    PyObject *columns = args[0];
    Py_ssize_t k = PyList_GET_SIZE(columns);
    Words words = {NULL, NULL};
    ArrowTable *t = PyObject_New(ArrowTable, &ArrowTableType);
    if (t == NULL)
        return NULL;
    struct ArrowSchema *s = &t->schema;
    struct ArrowArray *a = &t->array;
    memset(s, 0, sizeof(*s));
    memset(a, 0, sizeof(*a));
    s->format = "+s";
    s->name = strdup("");
    s->children = calloc(k ? (size_t)k : 1, sizeof(struct ArrowSchema *));
    s->release = release_schema;
    a->length = n;
    a->n_buffers = 1;
    a->buffers = calloc(1, sizeof(void *));
    a->children = calloc(k ? (size_t)k : 1, sizeof(struct ArrowArray *));
    a->release = release_struct;
    if (s->name == NULL || s->children == NULL || a->buffers == NULL || a->children == NULL) {
        Py_DECREF(t);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *spec = PyList_GET_ITEM(columns, i);
        const char *name, *kind;
        PyObject *values;
        int bit;
        if (!PyArg_ParseTuple(spec, "ssO!i", &name, &kind, &PyList_Type, &values, &bit)) {
            goto error;
        }
        const char *format = int_format(kind[0]);
        if (format == NULL || kind[1] != '\0' || (kind[0] == 'x' && (bit < 0 || bit > 63))) {
            PyErr_Format(PyExc_ValueError, "arrow_table: column %s of kind %s", name, kind);
            goto error;
        }
        if (PyList_GET_SIZE(values) < n) {  /* the values past n (the rows' room left over) are not read */
            PyErr_Format(PyExc_ValueError, "arrow_table: column %s holds %zd values, not %zd", name, PyList_GET_SIZE(values), n);
            goto error;
        }
        struct ArrowSchema *cs = calloc(1, sizeof(*cs));
        struct ArrowArray *ca = calloc(1, sizeof(*ca));
        if (cs != NULL) {
            s->children[s->n_children++] = cs;
            cs->format = format;
            cs->name = strdup(name);
            cs->flags = ARROW_FLAG_NULLABLE;
            cs->release = release_field;
        }
        if (ca != NULL)
            a->children[a->n_children++] = ca;
        if (cs == NULL || ca == NULL || cs->name == NULL) {
            PyErr_NoMemory();
            goto error;
        }
        if (fill_column(ca, kind[0], values, bit, n, &words) < 0) {
            a->n_children--;  /* released by fill_column */
            free(ca);
            goto error;
        }
    }
    free(words.words);
    return (PyObject *)t;
error:
    free(words.words);
    Py_DECREF(t);
    return NULL;
}

static PyMethodDef methods[] = {
    {"utf8", utf8, METH_O, "The text's UTF-8, a read-only view of the string's own UTF-8 cache (valid while the string lives)."},
    {"epoch_us", epoch_us, METH_O,
     "An aware datetime's microseconds since 1970-01-01 UTC (None for a naive one), from its fields and utcoffset()."},
    {"arrow_table", (PyCFunction)(void (*)(void))arrow_table, METH_FASTCALL,
     "A table's columns (name, kind, values, bit) of n values each as one Arrow struct array, for pl.DataFrame."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_columns", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__columns(void)
{
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL)
        return NULL;
    utcoffset_name = PyUnicode_InternFromString("utcoffset");
    if (utcoffset_name == NULL)
        return NULL;
    if (PyType_Ready(&ArrowTableType) < 0)
        return NULL;
    return PyModule_Create(&module);
}
