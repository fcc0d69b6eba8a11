"""Governance: modes, the rules of governance.yaml, and the decision taken for every call."""
