// SPDX-License-Identifier: MIT
/* A python that runs from libpython3.X.so (Debian's python3 is one static
 * executable): tests/live/python.py traces it as it does python3. */
#include <Python.h>

int main(int argc, char **argv)
{
	return Py_BytesMain(argc, argv);
}
