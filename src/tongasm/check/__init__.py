"""(reserved for later issues)"""
