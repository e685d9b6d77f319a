module kivgraph.dev/accuracy/oracle

go 1.19
