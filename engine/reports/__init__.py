"""Script reports (`script_report`) and their filter definitions (`filters`)."""
