# Type stub of zkl._capi, the compiled SWIG extension behind zkl.capi (use
# zkl.capi or, better, the package zkl itself).
from typing import Any

def __getattr__(name: str) -> Any: ...
