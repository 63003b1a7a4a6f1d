"""Doctypes the benchmarks use."""

app_name = "fwbench"
app_title = "FW Bench"
