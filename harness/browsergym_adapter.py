"""The BrowserGym adapter at its documented path: importing it registers every task as
`browsergym/admindesk.<task id>` (see `admindesk.harness.integrations.browsergym`)."""
from admindesk.harness.integrations.browsergym import AdminDeskTask, register_all, release_browsergym_driver

__all__ = ["AdminDeskTask", "register_all", "release_browsergym_driver"]
