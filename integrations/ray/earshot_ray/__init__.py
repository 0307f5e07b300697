"""Earshot on a Ray cluster: each actor owns one long-lived `earshot batch` process, Ray Data spreads the files
over the actors, and the results land in a Parquet dataset that a rerun resumes."""

from .inputs import list_inputs
from .pipeline import Summary, transcribe

__all__ = ["Summary", "list_inputs", "transcribe"]
