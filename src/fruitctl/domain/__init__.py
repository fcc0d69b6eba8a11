"""Pure domain: models, dates, errors and query semantics. Knows nothing else in fruitctl."""
