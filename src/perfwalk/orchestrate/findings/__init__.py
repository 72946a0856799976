"""The changes of stored series and what is known of each (breaks, evidence, layouts),
as the pages list them, and their notifications."""
