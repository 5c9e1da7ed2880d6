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
 * Built by setup.py beside the mypyc modules; HHTOOL_PURE=1 builds neither,
 * and rows.py encodes with str.encode instead.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

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

static PyMethodDef methods[] = {
    {"utf8", utf8, METH_O, "The text's UTF-8, a read-only view of the string's own UTF-8 cache (valid while the string lives)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_columns", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__columns(void)
{
    return PyModule_Create(&module);
}
