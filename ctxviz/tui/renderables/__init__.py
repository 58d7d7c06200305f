"""Plain Rich renderables (pure functions of their inputs); the widgets around them are thin."""
