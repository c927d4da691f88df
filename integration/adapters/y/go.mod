module example.com/pdpp-mcp-y

go 1.26
