"""The gymnasium wrapper at its documented path: see `admindesk.harness.integrations.gym`."""
from admindesk.harness.integrations.gym import AdminDeskGymEnv

__all__ = ["AdminDeskGymEnv"]
