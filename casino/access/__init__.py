"""Who may do what: roles, the policy, sign-in security, sessions, API tokens."""
