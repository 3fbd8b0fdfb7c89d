def test_dotted_folder():
    pass
