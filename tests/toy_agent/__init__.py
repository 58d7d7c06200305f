"""A toy agent's reader, added to the registry by the test that checks every face serves a new agent."""
