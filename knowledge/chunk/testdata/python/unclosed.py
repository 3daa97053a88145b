def broken(:
    s = """never closed
