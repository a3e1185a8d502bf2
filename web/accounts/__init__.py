"""Everyone's account pages: sign-in, "My account", privacy, leaving, asking to join."""
