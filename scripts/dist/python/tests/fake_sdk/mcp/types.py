"""mcp.types, as far as the stdio transports use it: JSONRPCMessage.

The SDK's JSONRPCMessage is a pydantic RootModel over the JSON-RPC
request, notification, response and error; here ``root`` is the message's
dict, checked for "jsonrpc": "2.0".
"""

import json


class JSONRPCMessage:
    def __init__(self, root):
        if not isinstance(root, dict) or root.get("jsonrpc") != "2.0":
            raise ValueError(f"not a JSON-RPC 2.0 message: {root!r}")
        self.root = root

    @classmethod
    def model_validate_json(cls, data):
        return cls(json.loads(data))

    def model_dump_json(self, *, by_alias=False, exclude_none=False):
        root = {k: v for k, v in self.root.items() if not (exclude_none and v is None)}
        return json.dumps(root, separators=(",", ":"))

    def __eq__(self, other):
        return isinstance(other, JSONRPCMessage) and other.root == self.root

    def __repr__(self):
        return f"JSONRPCMessage({self.root!r})"
