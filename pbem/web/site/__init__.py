"""What every page shares: error pages and problem+json, security headers, input checks at the
edge, the app's clock and the health check; and what keeps a page cheap to read again (its
fragments, a whole play page kept, static files linked by their hash)."""
