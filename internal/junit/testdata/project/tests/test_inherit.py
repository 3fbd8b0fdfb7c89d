from base_cases import BaseCases


class TestChild(BaseCases):
    pass
