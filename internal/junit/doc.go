// Package junit reads the JUnit XML file that pytest writes with
// --junitxml, and builds pytest node ids from its test cases.
//
// pytest writes file and line attributes only with junit_family=xunit1
// (pass -o junit_family=xunit1); with the default xunit2 family, NodeIDIn
// finds the test file by looking for it under the run's root folder.
//
// A test module that does not import appears as a test case with an empty
// classname, the dotted module path as its name, and an error with the
// message "collection failure". Its node id is the file path, as pytest
// prints it in "ERROR tests/test_x.py".
package junit
