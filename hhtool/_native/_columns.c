/* A small helper of the import's row building (hhtool/store/rows.py), in C.
 *
 * utf8(text): the text's UTF-8 bytes, taken from (and left in) the string's
 * own UTF-8 cache.  The raw text of a hand is hashed and then handed to
 * polars, which reads that cache; encoding it once instead of twice saves
 * 15,000 instructions a hand (a text with a euro sign is not ASCII, and
 * its encoding goes character by character).
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
    return PyBytes_FromStringAndSize(data, size);
}

static PyMethodDef methods[] = {
    {"utf8", utf8, METH_O, "The text's UTF-8 bytes, by way of the string's own UTF-8 cache."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_columns", NULL, -1, methods};

PyMODINIT_FUNC
PyInit__columns(void)
{
    return PyModule_Create(&module);
}
