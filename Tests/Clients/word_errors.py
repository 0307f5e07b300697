"""Word error rate between two texts as the client tests and the realtime benchmark score them: lower case, words
of letters, digits and apostrophes (hyphens split words), Levenshtein distance over words / reference words."""
import re


def words(text):
    return re.sub(r"[^a-z0-9' ]", " ", text.lower().replace("-", " ")).split()


def word_error_rate(reference, hypothesis):
    r, h = words(reference), words(hypothesis)
    row = list(range(len(h) + 1))
    for i, rw in enumerate(r, 1):
        previous, row[0] = row[0], i
        for j, hw in enumerate(h, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (rw != hw))
    return row[len(h)] / max(1, len(r))
