#!/usr/bin/python
print("Olá, Mundo!")
