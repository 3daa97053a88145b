import os


def main():
    print(os.getcwd())


class A:
    pass
