"""Exceptions whose messages say what is wrong and what to do."""


class PercvizError(ValueError):
    """Base class of every error percviz reports to a user."""


class DataError(PercvizError):
    """The points or labels cannot be used as given."""


class ParameterError(PercvizError):
    """A parameter value is out of its range or of the wrong type."""


class SpecError(PercvizError):
    """A kernel or feature-map spec string cannot be parsed."""


class PresetError(PercvizError):
    """A preset or CSV file cannot be loaded; names the file and the field at fault."""

    def __init__(self, path, field, problem):
        self.path, self.field, self.problem = str(path), field, problem
        where = f" (field '{field}')" if field else ""
        super().__init__(f"{self.path}{where}: {problem}")
