from pkg.render import Spec, prompt, render


def test_render_script():
    out = render(Spec(task="t1"))
    assert "task t1" in out


def test_prompt():
    assert "Fix it" in prompt("Fix it")
