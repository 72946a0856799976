"""An adaptive walk: its checkouts chosen as it measures, where the series is most uncertain."""
