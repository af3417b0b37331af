"""A fake of the MCP Python SDK (package mcp), for the tests of session_starter's MCP helpers.

PyPI is not reachable where these tests run, so the SDK cannot be
installed. This package reproduces the parts of it the helpers touch, as
the SDK documents and implements them: mcp.types.JSONRPCMessage (parsed
from and dumped to one JSON line), mcp.shared.message.SessionMessage,
and mcp.client.stdio's StdioServerParameters (a pydantic model with
model_copy), get_default_environment() and stdio_client(). It needs anyio,
as the SDK does.
"""
