import pytest


def test_pass():
    assert True


def test_fail():
    assert 1 == 2, "one is not two"


@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")


def test_setup_error(broken):
    pass


def test_skip():
    pytest.skip("not on this machine")


@pytest.mark.xfail(reason="known bug")
def test_xfail():
    assert False


@pytest.mark.parametrize("v", [1, "a.b", "x::y"])
def test_param(v):
    assert v == 1


class TestOuter:
    def test_method(self):
        print("captured <out> & more")
        assert "a" == "b"

    class TestInner:
        def test_nested(self):
            pass
