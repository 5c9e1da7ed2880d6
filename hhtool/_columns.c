/* Two small loops of the import's row building (hhtool/store/rows.py), in C.
 *
 * append_row(cols, row): cols[i].append(row[i]) for every column.  The
 * import adds about forty rows a hand, some of forty-odd columns; compiled
 * by mypyc the same loop checks bounds and counts references around every
 * append, and was a fifth of the row building (callgrind: 57,000 of the
 * 272,000 instructions a hand).
 *
 * utf8(text): the text's UTF-8 bytes, taken from (and left in) the string's
 * own UTF-8 cache.  The raw text of a hand is hashed and then handed to
 * polars, which reads that cache; encoding it once instead of twice saves
 * 15,000 instructions a hand (a text with a euro sign is not ASCII, and
 * its encoding goes character by character).
 *
 * Built by setup.py beside the mypyc modules; HHTOOL_PURE=1 builds neither,
 * and rows.py uses plain Python loops instead.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *
append_row(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "append_row(cols, row) takes two arguments");
        return NULL;
    }
    PyObject *cols = args[0], *row = args[1];
    if (!PyList_Check(cols) || !PyTuple_Check(row)) {
        PyErr_SetString(PyExc_TypeError, "append_row(cols, row): a list of lists and a tuple");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(cols);
    if (PyTuple_GET_SIZE(row) != n) {
        PyErr_Format(PyExc_ValueError, "append_row: a row of %zd values for %zd columns", PyTuple_GET_SIZE(row), n);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *col = PyList_GET_ITEM(cols, i);
        if (!PyList_Check(col)) {
            PyErr_SetString(PyExc_TypeError, "append_row: every column must be a list");
            return NULL;
        }
        if (PyList_Append(col, PyTuple_GET_ITEM(row, i)) < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

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
    return PyBytes_FromStringAndSize(data, size);
}

static PyMethodDef methods[] = {
    {"append_row", (PyCFunction)(void (*)(void))append_row, METH_FASTCALL, "cols[i].append(row[i]) for every column."},
    {"utf8", utf8, METH_O, "The text's UTF-8 bytes, by way of the string's own UTF-8 cache."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_columns", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__columns(void)
{
    return PyModule_Create(&module);
}
