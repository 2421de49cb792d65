"""Reports: the model every run fills (model.py) and one writer per output format."""
