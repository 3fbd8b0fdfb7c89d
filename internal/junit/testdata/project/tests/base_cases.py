class BaseCases:
    def test_inherited(self):
        assert True
