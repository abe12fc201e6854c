// Real MCP clients that we did not write, driving the built binary: see tests/clients/.
