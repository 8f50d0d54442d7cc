"""The admin side: the console's reads, an admin's actions on matches and players, the audit
log, the daily admin digest and what an operator watches."""
