"""One module per capability; each defines `register(registry: CommandRegistry)`."""
