package exec

import (
	"fmt"
	"reflect"

	"github.com/formula-code/template-verify/third_party/gonja/nodes"
)

// TestFunction is the type test functions must fulfill is
// type TestFunction func(*Evaluator, *Value, *VarArgs) (bool, error)
// but we use an so as to support the legacy type
// type TestFunction func(*Context, *Value, *VarArgs) (bool, error)
// in a backwards compatible way
type TestFunction any

func (e *Evaluator) EvalTest(expr *nodes.TestExpression) *Value {
	value := e.Eval(expr.Expression)

	return e.ExecuteTest(expr.Test, value)
}

func (e *Evaluator) ExecuteTest(tc *nodes.TestCall, v *Value) *Value {
	params := &VarArgs{
		Args:   []*Value{},
		KwArgs: map[string]*Value{},
	}

	for _, param := range tc.Args {
		value := e.Eval(param)
		if value.IsError() {
			return AsValue(fmt.Errorf(`Unable to evaluate parameter %s: %w`, param, value))
		}
		params.Args = append(params.Args, value)
	}

	for key, param := range tc.Kwargs {
		value := e.Eval(param)
		if value.IsError() {
			return AsValue(fmt.Errorf(`Unable to evaluate parameter %s: %w`, param, value))
		}
		params.KwArgs[key] = value
	}

	return e.ExecuteTestByName(tc.Name, v, params)
}

func (e *Evaluator) ExecuteTestByName(name string, in *Value, params *VarArgs) *Value {
	test, ok := e.Environment.Tests.Get(name)
	if !e.Environment.Tests.Exists(name) || !ok {
		return AsValue(fmt.Errorf("test '%s' not found", name))
	}

	if err := e.Environment.Tests.validate(name, test); err != nil {
		return AsValue(fmt.Errorf("test '%s' is invalid: %q", name, err))
	}

	result, err := callTest(e, test, in, params)
	if callErr, ok := err.(ErrInvalidCall); ok && err != nil {
		return AsValue(fmt.Errorf("invalid call to test '%s': %s", name, callErr.Error()))
	} else if err != nil {
		return AsValue(fmt.Errorf("unable to execute test '%s': %s", name, err.Error()))
	} else {
		return AsValue(result)
	}
}

// callTest calls a validated test function. The two plain function types
// are called directly: a call through reflect allocated its arguments and
// results on every test in a template.
func callTest(e *Evaluator, test TestFunction, in *Value, params *VarArgs) (bool, error) {
	switch fn := test.(type) {
	case func(*Evaluator, *Value, *VarArgs) (bool, error):
		return fn(e, in, params)
	case func(*Context, *Value, *VarArgs) (bool, error):
		return fn(e.Environment.Context, in, params)
	}
	testFn := reflect.ValueOf(test)
	firstArgument := reflect.ValueOf(e)
	if testFn.Type().In(0) == reflect.TypeFor[*Context]() {
		firstArgument = reflect.ValueOf(e.Environment.Context)
	}
	arguments := []reflect.Value{
		firstArgument,
		reflect.ValueOf(in),
		reflect.ValueOf(params),
	}
	results := testFn.Call(arguments)
	var err error
	if !results[1].IsNil() {
		err = results[1].Interface().(error)
	}
	return results[0].Bool(), err
}
