"""Mail in: acting on one reply already read by the mail layer, exactly once per message."""
