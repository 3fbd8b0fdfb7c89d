from pkg.adapter.render import render_grader


def test_render():
    assert render_grader("o", 1)
