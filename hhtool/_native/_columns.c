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
 * Built by setup.py beside the mypyc modules; HHTOOL_PURE=1 builds neither,
 * and rows.py encodes with str.encode instead.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>

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

static PyMethodDef methods[] = {
    {"utf8", utf8, METH_O, "The text's UTF-8, a read-only view of the string's own UTF-8 cache (valid while the string lives)."},
    {"epoch_us", epoch_us, METH_O,
     "An aware datetime's microseconds since 1970-01-01 UTC (None for a naive one), from its fields and utcoffset()."},
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
    return PyModule_Create(&module);
}
