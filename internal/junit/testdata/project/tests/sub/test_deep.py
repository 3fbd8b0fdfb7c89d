def test_deep():
    pass
