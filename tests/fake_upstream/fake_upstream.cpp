// placeholder until the fake upstream lands
