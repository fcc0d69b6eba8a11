"""The API's routes, one module per area; each builds an ``APIRouter`` on a ``Door``."""
