import no_such_module_abc

def test_never():
    pass
