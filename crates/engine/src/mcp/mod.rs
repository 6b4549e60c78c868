//! The MCP host: servers from mcp.json through rmcp, and the planning/execution profiles (issue 4).
