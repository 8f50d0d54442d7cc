"""Mail on the web: preferences and one-click unsubscribe without signing in, inbound mail over
HTTP, and the development mailbox."""
