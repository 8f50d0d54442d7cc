"""What every page shares: error pages and problem+json, security headers, input checks at the
edge, the app's clock and the health check."""
