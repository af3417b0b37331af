"""mcp.shared.message: SessionMessage, a JSONRPCMessage and its metadata, as the SDK's transports pass them."""

from dataclasses import dataclass
from typing import Any


@dataclass
class SessionMessage:
    message: Any
    metadata: Any = None
