"""A long class, split at its methods."""


class Big:
    """Big has many methods."""

    LIMIT = 3

    # method_0 is number 0.
    def method_0(self, x):
        y = x + 0
        if y > 10:
            return y
        return -y

    # method_1 is number 1.
    def method_1(self, x):
        y = x + 1
        if y > 10:
            return y
        return -y

    # method_2 is number 2.
    def method_2(self, x):
        y = x + 2
        if y > 10:
            return y
        return -y

    # method_3 is number 3.
    def method_3(self, x):
        y = x + 3
        if y > 10:
            return y
        return -y

    # method_4 is number 4.
    def method_4(self, x):
        y = x + 4
        if y > 10:
            return y
        return -y

    # method_5 is number 5.
    def method_5(self, x):
        y = x + 5
        if y > 10:
            return y
        return -y

    # method_6 is number 6.
    def method_6(self, x):
        y = x + 6
        if y > 10:
            return y
        return -y

    # method_7 is number 7.
    def method_7(self, x):
        y = x + 7
        if y > 10:
            return y
        return -y

    # method_8 is number 8.
    def method_8(self, x):
        y = x + 8
        if y > 10:
            return y
        return -y

    # method_9 is number 9.
    def method_9(self, x):
        y = x + 9
        if y > 10:
            return y
        return -y

    # method_10 is number 10.
    def method_10(self, x):
        y = x + 10
        if y > 10:
            return y
        return -y

    # method_11 is number 11.
    def method_11(self, x):
        y = x + 11
        if y > 10:
            return y
        return -y

    # method_12 is number 12.
    def method_12(self, x):
        y = x + 12
        if y > 10:
            return y
        return -y

    # method_13 is number 13.
    def method_13(self, x):
        y = x + 13
        if y > 10:
            return y
        return -y

    # method_14 is number 14.
    def method_14(self, x):
        y = x + 14
        if y > 10:
            return y
        return -y

    OTHER = 4

    # method_15 is number 15.
    def method_15(self, x):
        y = x + 15
        if y > 10:
            return y
        return -y

    # method_16 is number 16.
    def method_16(self, x):
        y = x + 16
        if y > 10:
            return y
        return -y

    # method_17 is number 17.
    def method_17(self, x):
        y = x + 17
        if y > 10:
            return y
        return -y

    # method_18 is number 18.
    def method_18(self, x):
        y = x + 18
        if y > 10:
            return y
        return -y

    # method_19 is number 19.
    def method_19(self, x):
        y = x + 19
        if y > 10:
            return y
        return -y

    # method_20 is number 20.
    def method_20(self, x):
        y = x + 20
        if y > 10:
            return y
        return -y

    # method_21 is number 21.
    def method_21(self, x):
        y = x + 21
        if y > 10:
            return y
        return -y

    # method_22 is number 22.
    def method_22(self, x):
        y = x + 22
        if y > 10:
            return y
        return -y

    # method_23 is number 23.
    def method_23(self, x):
        y = x + 23
        if y > 10:
            return y
        return -y

    # method_24 is number 24.
    def method_24(self, x):
        y = x + 24
        if y > 10:
            return y
        return -y

    # method_25 is number 25.
    def method_25(self, x):
        y = x + 25
        if y > 10:
            return y
        return -y

    # method_26 is number 26.
    def method_26(self, x):
        y = x + 26
        if y > 10:
            return y
        return -y

    # method_27 is number 27.
    def method_27(self, x):
        y = x + 27
        if y > 10:
            return y
        return -y

    # method_28 is number 28.
    def method_28(self, x):
        y = x + 28
        if y > 10:
            return y
        return -y

    # method_29 is number 29.
    def method_29(self, x):
        y = x + 29
        if y > 10:
            return y
        return -y


def after():
    return Big()
