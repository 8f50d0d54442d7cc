"""Web push out: VAPID keys and the sender that drains the push outbox (`core/push`)."""
