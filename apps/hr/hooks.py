"""hooks.py of hr: the master data (Company, Branch, Employee) other apps link to."""

app_name = "hr"
app_title = "HR"
app_publisher = "fw"
app_description = "Companies, branches and employees: the masters the reference application builds on"
app_email = "dev@example.com"
app_license = "MIT"
app_version = "0.1.0"
