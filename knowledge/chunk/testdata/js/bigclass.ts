// A long class, split at its members.
export class Big {
  static LIMIT = 3;

  /** method0 is number 0. */
  method0(x) {
    const y = x + 0;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method1 is number 1. */
  method1(x) {
    const y = x + 1;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method2 is number 2. */
  method2(x) {
    const y = x + 2;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method3 is number 3. */
  method3(x) {
    const y = x + 3;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method4 is number 4. */
  method4(x) {
    const y = x + 4;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method5 is number 5. */
  method5(x) {
    const y = x + 5;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method6 is number 6. */
  method6(x) {
    const y = x + 6;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method7 is number 7. */
  method7(x) {
    const y = x + 7;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method8 is number 8. */
  method8(x) {
    const y = x + 8;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method9 is number 9. */
  method9(x) {
    const y = x + 9;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method10 is number 10. */
  method10(x) {
    const y = x + 10;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method11 is number 11. */
  method11(x) {
    const y = x + 11;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method12 is number 12. */
  method12(x) {
    const y = x + 12;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method13 is number 13. */
  method13(x) {
    const y = x + 13;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method14 is number 14. */
  method14(x) {
    const y = x + 14;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method15 is number 15. */
  method15(x) {
    const y = x + 15;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method16 is number 16. */
  method16(x) {
    const y = x + 16;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method17 is number 17. */
  method17(x) {
    const y = x + 17;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method18 is number 18. */
  method18(x) {
    const y = x + 18;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method19 is number 19. */
  method19(x) {
    const y = x + 19;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method20 is number 20. */
  method20(x) {
    const y = x + 20;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method21 is number 21. */
  method21(x) {
    const y = x + 21;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method22 is number 22. */
  method22(x) {
    const y = x + 22;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method23 is number 23. */
  method23(x) {
    const y = x + 23;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  /** method24 is number 24. */
  method24(x) {
    const y = x + 24;
    if (y > 10) {
      return y;
    }
    return -y;
  }

  get size() {
    return 25;
  }
}

export const after = new Big();
