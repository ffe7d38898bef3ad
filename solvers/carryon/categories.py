"""The category vocabularies of CarryOnBench records and checklist items."""

from typing import Literal

SafetyCategory = Literal["offensive_language", "dangerous_topics", "privacy", "false_information"]
"""CoCoNot-style safety subcategories of the seemingly harmful queries."""

InformationCategory = Literal[
    "Case Study", "Legal Framework", "Conceptual Explanation", "Resource", "Practical Advice"
]
"""What kind of information a Ben-Util checklist item asks for."""
