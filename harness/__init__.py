"""The harness: app services, Chromium, drawn browser chrome, actions, observations and the Env."""
